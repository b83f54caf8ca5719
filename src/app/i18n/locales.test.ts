import { describe, expect, it } from "vitest";
import { VALIDATION_MESSAGES } from "../../shared/validation";
import { resources } from "./index";

// Every locale file, including the namespaces that load lazily with their screens (admin, auth).
const files = import.meta.glob<Record<string, unknown>>("./locales/*/*.json", { eager: true, import: "default" });
const all: Record<string, Record<string, Record<string, unknown>>> = {};
for (const [path, content] of Object.entries(files)) {
  const [, lang, ns] = /\.\/locales\/(\w+)\/([\w-]+)\.json$/.exec(path) ?? [];
  if (!lang || !ns) continue;
  all[lang] ??= {};
  all[lang][ns] = content;
}

function keys(value: unknown, prefix = ""): string[] {
  if (value === null || typeof value !== "object") return [prefix];
  return Object.entries(value).flatMap(([k, v]) => keys(v, prefix ? `${prefix}.${k}` : k));
}

describe("locales", () => {
  it("has English and Spanish files for the same namespaces", () => {
    expect(Object.keys(all).sort()).toEqual(["en", "es"]);
    expect(Object.keys(all.es!).sort()).toEqual(Object.keys(all.en!).sort());
    expect(Object.keys(all.en!)).toEqual(expect.arrayContaining(["common", "auth", "admin"]));
  });

  it.each(Object.keys(all.en ?? {}))("namespace %s has exactly the same keys in both languages", (ns) => {
    expect(keys(all.es![ns]).sort()).toEqual(keys(all.en![ns]).sort());
  });

  it("has no empty strings", () => {
    for (const lang of ["en", "es"]) {
      for (const [ns, content] of Object.entries(all[lang]!)) {
        const empty = keys(content).filter((k) => {
          const v = k.split(".").reduce<unknown>((o, part) => (o as Record<string, unknown>)[part], content);
          return typeof v !== "string" || v.trim() === "";
        });
        expect(empty, `${lang}/${ns}`).toEqual([]);
      }
    }
  });

  it("words every validation code in both languages, in English as the API does", () => {
    for (const lang of ["en", "es"]) expect(Object.keys(all[lang]!.forms!.validation as object).sort()).toEqual(Object.keys(VALIDATION_MESSAGES).sort());
    expect(all.en!.forms!.validation).toEqual(VALIDATION_MESSAGES);
  });

  it("bundles only the landing namespaces with the entry", () => {
    expect(Object.keys(resources.en!).sort()).toEqual(["common"]);
  });
});
