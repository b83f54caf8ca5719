import i18n from "i18next";
import { initReactI18next } from "react-i18next";

export const LANGUAGES = ["en", "es"] as const;
export type Language = (typeof LANGUAGES)[number];
export const LANGUAGE_STORAGE_KEY = "language";

// One JSON file per language and feature (locales/<lang>/<namespace>.json); a test keeps their keys identical.
// The admin and auth namespaces are not among them: their screens load them (./admin.ts, ./auth.ts), off the landing route.
const files = import.meta.glob<Record<string, unknown>>(["./locales/*/*.json", "!./locales/*/admin.json", "!./locales/*/auth.json"], { eager: true, import: "default" });
export const resources: Record<string, Record<string, Record<string, unknown>>> = {};
for (const [path, content] of Object.entries(files)) {
  const [, lang, ns] = /\.\/locales\/(\w+)\/([\w-]+)\.json$/.exec(path) ?? [];
  if (lang && ns) (resources[lang] ??= {})[ns] = content;
}

export function storedLanguage(): Language {
  try {
    const value = localStorage.getItem(LANGUAGE_STORAGE_KEY);
    return value === "es" ? "es" : "en";
  } catch {
    return "en";
  }
}

export function setLanguage(lang: Language) {
  try {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, lang);
  } catch {
    // Private browsing may refuse storage; the toggle still works for this visit.
  }
  document.documentElement.lang = lang;
  return i18n.changeLanguage(lang);
}

void i18n.use(initReactI18next).init({
  resources,
  lng: storedLanguage(),
  fallbackLng: "en",
  ns: Object.keys(resources.en ?? {}),
  defaultNS: "common",
  interpolation: { escapeValue: false },
  returnNull: false,
});

export default i18n;
