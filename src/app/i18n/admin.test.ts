import { describe, expect, it } from "vitest";
import i18n from "./index";
import { adminResources, ADMIN_NS } from "./admin";

function keys(value: unknown, prefix = ""): string[] {
  if (value === null || typeof value !== "object") return [prefix];
  return Object.entries(value).flatMap(([k, v]) => keys(v, prefix ? `${prefix}.${k}` : k));
}

// The admin namespace is loaded by the admin pages rather than with the others, so it has its own check.
describe("admin strings", () => {
  it("have exactly the same keys in English and Spanish", () => {
    expect(keys(adminResources.es).sort()).toEqual(keys(adminResources.en).sort());
  });

  it("have no empty strings", () => {
    for (const strings of Object.values(adminResources)) {
      for (const key of keys(strings)) {
        const value = key.split(".").reduce<unknown>((o, part) => (o as Record<string, unknown>)[part], strings);
        expect(typeof value === "string" && value.trim() !== "", key).toBe(true);
      }
    }
  });

  it("are registered with i18next in both languages once an admin page loads", () => {
    expect(i18n.getFixedT("es", ADMIN_NS)("send.sending")).toBe("Enviando mensaje...");
    expect(i18n.getFixedT("en", ADMIN_NS)("send.confirm", { n: 3 })).toBe("Are you sure you want to send this message to 3 users?");
  });
});
