import { describe, expect, it } from "vitest";
import { ADMIN_NS } from "./admin";
import i18n from "./index";

// Key parity and empty strings for every namespace: src/app/i18n/locales.test.ts.
describe("admin strings", () => {
  it("are registered with i18next in both languages once an admin page loads", () => {
    expect(i18n.getFixedT("es", ADMIN_NS)("send.sending")).toBe("Enviando mensaje...");
    expect(i18n.getFixedT("en", ADMIN_NS)("send.confirmTitle", { count: 3 })).toBe("Send this message to 3 people?");
    expect(i18n.getFixedT("es", ADMIN_NS)("send.confirmTitle", { count: 1 })).toBe("¿Enviar este mensaje a 1 persona?");
  });
});
