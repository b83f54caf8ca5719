import { describe, expect, it } from "vitest";
import { validationKey } from "../../components/ui/use-form";
import i18n from "../../i18n";
import { authResources } from "../../i18n/auth";
import { codeSchema, emailSchema, passwordSchema, phoneSchema } from "../../../shared/auth";

function keys(value: unknown, prefix = ""): string[] {
  if (value === null || typeof value !== "object") return [prefix];
  return Object.entries(value).flatMap(([k, v]) => keys(v, prefix ? `${prefix}.${k}` : k));
}

// The auth namespace loads with the identity screens, not with the others, so it has its own check.
describe("identity strings", () => {
  it("have exactly the same keys in English and Spanish", () => {
    expect(keys(authResources.es).sort()).toEqual(keys(authResources.en).sort());
  });

  it("have no empty strings", () => {
    for (const strings of Object.values(authResources)) {
      for (const key of keys(strings)) {
        const value = key.split(".").reduce<unknown>((o, part) => (o as Record<string, unknown>)[part], strings);
        expect(typeof value === "string" && value.trim() !== "", key).toBe(true);
      }
    }
  });

  it("word every message the shared schemas can give, in both languages", () => {
    const samples: [{ safeParse: (v: unknown) => { error?: { issues: { message: string; code?: string }[] } } }, string[]][] = [
      [passwordSchema, ["", "abcdefgh", "abcdefg1", "Abcdefg1", "A1!" + "x".repeat(300)]],
      [phoneSchema, ["", "123", "555-0100", "1".repeat(40)]],
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
