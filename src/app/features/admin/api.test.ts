import { afterEach, beforeEach, describe, expect, it } from "vitest";
import i18n, { setLanguage } from "../../i18n";
import { ADMIN_NS } from "../../i18n/admin";
import { ApiClientError } from "../../lib/api-client";
import { serverMessage } from "./api";

const t = () => i18n.getFixedT(null, ADMIN_NS);

describe("serverMessage: the server's answer in the admin's language (docs/api.md, languages)", () => {
  beforeEach(async () => setLanguage("en"));
  afterEach(async () => setLanguage("en"));

  const segments = new ApiClientError(422, "unprocessable", "The message needs 3 SMS segments; the limit is one", {
    messages: 3,
    encoding: "GSM_7BIT",
    reason: "sms_over_one_segment",
  });
  const unknownReason = new ApiClientError(409, "conflict", "Something only the server knows", { reason: "never_heard_of_it" });
  const phones = new ApiClientError(400, "validation_failed", "2 phone numbers are not valid: 911, 800", [
    { path: "phones.0", message: "Enter a US or Canada phone number", value: "911", reason: "format" },
    { path: "phones.1", message: "Toll-free numbers cannot receive our messages", value: "800", reason: "toll_free" },
  ]);

  it("words a refusal it knows from its reason and details, in English and in Spanish", async () => {
    expect(serverMessage(segments, t())).toBe("The message needs 3 SMS segments; the limit is one.");
    await setLanguage("es");
    expect(serverMessage(segments, t())).toBe("El mensaje necesita 3 segmentos SMS; el límite es uno.");
  });

  it("says how many numbers were refused, and which, plural-correct, in both languages", async () => {
    expect(serverMessage(phones, t())).toBe("2 phone numbers are not valid: 911, 800");
    await setLanguage("es");
    expect(serverMessage(phones, t())).toBe("2 números de teléfono no son válidos: 911, 800");
  });

  it("shows an unknown refusal as the server wrote it in English, and by its code's meaning in Spanish", async () => {
    expect(serverMessage(unknownReason, t())).toBe("Something only the server knows");
    await setLanguage("es");
    expect(serverMessage(unknownReason, t())).toBe("Esto cambió mientras tanto. Recarga e inténtalo de nuevo.");
  });

  it("leaves network errors and bare statuses to the screen", () => {
    expect(serverMessage(new ApiClientError(0, "network_error", "Network error"), t())).toBeNull();
    expect(serverMessage(new ApiClientError(502, "http_error", "Request failed (502)"), t())).toBeNull();
    expect(serverMessage(new Error("boom"), t())).toBeNull();
  });
});
