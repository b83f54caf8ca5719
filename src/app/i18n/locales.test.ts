import { describe, expect, it } from "vitest";
import { resources } from "./index";

function keys(value: unknown, prefix = ""): string[] {
  if (value === null || typeof value !== "object") return [prefix];
  return Object.entries(value).flatMap(([k, v]) => keys(v, prefix ? `${prefix}.${k}` : k));
}

describe("locales", () => {
  it("has English and Spanish with the same namespaces", () => {
    expect(Object.keys(resources).sort()).toEqual(["en", "es"]);
    expect(Object.keys(resources.es!).sort()).toEqual(Object.keys(resources.en!).sort());
  });

  it.each(Object.keys(resources.en ?? {}))("namespace %s has exactly the same keys in both languages", (ns) => {
    expect(keys(resources.es![ns]).sort()).toEqual(keys(resources.en![ns]).sort());
  });

  it("has no empty strings", () => {
    for (const lang of ["en", "es"]) {
      for (const [ns, content] of Object.entries(resources[lang]!)) {
        const empty = keys(content).filter((k) => {
          const v = k.split(".").reduce<unknown>((o, part) => (o as Record<string, unknown>)[part], content);
          return typeof v !== "string" || v.trim() === "";
        });
        expect(empty, `${lang}/${ns}`).toEqual([]);
      }
    }
  });
});
