import { describe, expect, it } from "vitest";
import { codeSchema, emailSchema, passwordSchema, phoneSchema } from "../../../shared/auth";
import { isValidationCode } from "../../../shared/validation";
import i18n from "../../i18n";
import { fieldErrorText } from "../../lib/forms";

// Key parity and empty strings for every namespace: src/app/i18n/locales.test.ts.
describe("validation strings", () => {
  it("every message the shared schemas can give is a code, worded in both languages", () => {
    const samples: [{ safeParse: (v: unknown) => { error?: { issues: { message: string; code?: string }[] } } }, string[]][] = [
      [passwordSchema, ["", "abcdefgh", "abcdefg1", "Abcdefg1", `A1!${"x".repeat(300)}`]],
      // Every refusal of src/shared/phone.ts: format, area code, exchange, toll-free, premium, Caribbean, not in service.
      [
        phoneSchema,
        ["", "123", "555-0100", "1".repeat(40), "(211) 555-0100", "(305) 911-0100", "(800) 555-0100", "(900) 555-0100", "(876) 555-0100", "(555) 555-0100"],
      ],
      [emailSchema, ["", "a@b", "x".repeat(300)]],
      [codeSchema, ["", "12345", "abcdef"]],
    ];
    for (const [schema, values] of samples) {
      for (const value of values) {
        for (const issue of schema.safeParse(value).error?.issues ?? []) {
          expect(isValidationCode(issue.message), issue.message).toBe(true);
          for (const lang of ["en", "es"]) {
            const text = fieldErrorText(i18n.getFixedT(lang), { message: issue.message, type: issue.code ?? "custom" });
            expect(text, `${issue.message} (${lang})`).not.toContain("validation.");
          }
        }
      }
    }
  });

  it("words a code by code, a screen's key as that key, and anything else as 'check this field'", () => {
    const t = i18n.getFixedT("es");
    expect(fieldErrorText(t, { message: "passwordNumber", type: "custom" })).toBe("Incluye un número");
    expect(fieldErrorText(t, { message: "auth:errors.codeIncorrect", type: "server" })).toBe(t("auth:errors.codeIncorrect"));
    expect(fieldErrorText(t, { message: "Too big: expected string to have <=100 characters", type: "too_big" })).toBe("Demasiado largo");
    expect(fieldErrorText(t, { message: "Invalid option", type: "invalid_value" })).toBe("Revisa este campo");
  });
});
