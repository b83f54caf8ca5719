import { describe, expect, it } from "vitest";
import { validationKey } from "../../components/ui/use-form";
import i18n from "../../i18n";
import "../../i18n/auth";
import { codeSchema, emailSchema, passwordSchema, phoneSchema } from "../../../shared/auth";

// Key parity and empty strings for every namespace: src/app/i18n/locales.test.ts.
describe("identity strings", () => {
  it("word every message the shared schemas can give, in both languages", () => {
    const samples: [{ safeParse: (v: unknown) => { error?: { issues: { message: string; code?: string }[] } } }, string[]][] = [
      [passwordSchema, ["", "abcdefgh", "abcdefg1", "Abcdefg1", "A1!" + "x".repeat(300)]],
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
          const key = validationKey(issue);
          for (const lang of ["en", "es"]) {
            const text = i18n.getFixedT(lang)(key);
            expect(text, `${issue.message} → ${key} (${lang})`).not.toBe(key.replace(/^auth:/, ""));
            expect(key, issue.message).not.toBe("auth:validation.invalid");
          }
        }
      }
    }
  });
});
