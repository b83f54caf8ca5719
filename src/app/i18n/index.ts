import i18n from "i18next";
import { initReactI18next } from "react-i18next";
import { untilHydrated } from "../boot/hydration";

export const LANGUAGES = ["en", "es"] as const;
export type Language = (typeof LANGUAGES)[number];
export const LANGUAGE_STORAGE_KEY = "language";

// One JSON file per language and namespace (locales/<lang>/<namespace>.json); a test keeps their keys identical.
// Only "common" (the top bar, titles, shared words) loads with the entry. Every other namespace is
// added by the module of the screens that use it (./admin.ts, ./auth.ts, ./forms.ts, ./site.ts…), off the landing route.
// Only English (the default and the fallback) is in the entry bundle; the other language's common
// strings are a small chunk fetched before the first render (ready) or when the toggle picks it.
const english = import.meta.glob<Record<string, unknown>>("./locales/en/common.json", { eager: true, import: "default" });
const others = import.meta.glob<Record<string, unknown>>(["./locales/*/common.json", "!./locales/en/common.json"], { import: "default" });

const namespaceOf = (path: string) => /\.\/locales\/\w+\/([\w-]+)\.json$/.exec(path)?.[1];

/** The strings in the entry bundle, by language and namespace (English only). */
export const resources: Record<string, Record<string, Record<string, unknown>>> = { en: {} };
for (const [path, content] of Object.entries(english)) {
  const ns = namespaceOf(path);
  if (ns) resources.en![ns] = content;
}

/** Adds a language's landing namespaces (a no-op for English or once loaded). */
export async function loadLanguage(lang: Language): Promise<void> {
  const pending = Object.entries(others).filter(([path]) => path.startsWith(`./locales/${lang}/`));
  await Promise.all(
    pending.map(async ([path, load]) => {
      const ns = namespaceOf(path);
      if (ns && !i18n.hasResourceBundle(lang, ns)) i18n.addResourceBundle(lang, ns, await load());
    }),
  );
}

export function storedLanguage(): Language {
  try {
    const value = localStorage.getItem(LANGUAGE_STORAGE_KEY);
    return value === "es" ? "es" : "en";
  } catch {
    return "en";
  }
}

export async function setLanguage(lang: Language): Promise<void> {
  await loadLanguage(lang);
  // Not while a pre-rendered page is still hydrating: a part of it still server HTML would hydrate
  // with the new language's words against the old ones (src/app/boot/hydration.tsx).
  await untilHydrated();
  try {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, lang);
  } catch {
    // Private browsing may refuse storage; the toggle still works for this visit.
  }
  document.documentElement.lang = lang;
  await i18n.changeLanguage(lang);
}

const initialized = i18n.use(initReactI18next).init({
  resources,
  lng: "en",
  fallbackLng: "en",
  ns: Object.keys(resources.en ?? {}),
  defaultNS: "common",
  interpolation: { escapeValue: false },
  returnNull: false,
});

/** Fetches and applies the stored language; if its strings cannot be fetched the app stays in English. */
export async function applyStoredLanguage(): Promise<void> {
  await initialized;
  const lang = storedLanguage();
  if (lang !== "en") await setLanguage(lang).catch((err: unknown) => console.error("could not load the stored language; showing English", err));
}

/** Resolves once the stored language's strings are in: main.tsx renders after it, so no English flashes first. */
export const ready = applyStoredLanguage();

export default i18n;
