import { describe, expect, it } from "vitest";
import { countSms } from "../../shared/sms";
import { APP_ORIGIN_MAX_LENGTH } from "../config";
import { billingMessages, INVITER_FIRST_NAME_MAX, inviterFirstName } from "./notify";

describe("the invitation text", () => {
  it("carries a first name only: letters (accents GSM-7 lacks taken off), at most 20, else no name", () => {
    expect(inviterFirstName("Inés Ramírez")).toBe("Inés");
    expect(inviterFirstName("  María José ")).toBe("Maria");
    expect(inviterFirstName("Mary-Jane Watson")).toBe("Mary-Jane");
    expect(inviterFirstName("O’Brien")).toBe("O'Brien");
    expect(inviterFirstName("Björn")).toBe("Björn");
    expect(inviterFirstName("W".repeat(INVITER_FIRST_NAME_MAX))).toBe("W".repeat(INVITER_FIRST_NAME_MAX));
    for (const name of [
      "W".repeat(INVITER_FIRST_NAME_MAX + 1),
      "Ana2",
      "http://evil.example",
      "evil.example",
      "😀",
      "Bob😀",
      "Анна",
      "-Ann",
      "Ann--Marie",
      "",
      "  ",
    ]) {
      expect(inviterFirstName(name), name).toBeNull();
    }
  });

  it("is GSM-7 and one segment in both languages, with the longest first name and the longest APP_ORIGIN", () => {
    const origin = `https://${"x".repeat(APP_ORIGIN_MAX_LENGTH - "https://".length)}`;
    const link = `${origin}/register?ref=ABCD2345`;
    const longest = inviterFirstName("Ä".repeat(INVITER_FIRST_NAME_MAX))!;
    expect(longest).toHaveLength(INVITER_FIRST_NAME_MAX);
    for (const lang of ["en", "es"] as const) {
      for (const name of [longest, null]) {
        const count = countSms(billingMessages.invite(lang, name, link));
        expect(count, `${lang} ${name}`).toMatchObject({ encoding: "GSM_7BIT", messages: 1 });
      }
    }
  });
});
