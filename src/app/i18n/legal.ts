/**
 * The terms and privacy texts (namespace "legal"): long, and read on two pages only, so they load
 * with those pages; this module adds both languages before they render.
 */
import i18n from "./index";
import en from "./locales/en/legal.json";
import es from "./locales/es/legal.json";

export const LEGAL_NS = "legal";

for (const [lang, strings] of Object.entries({ en, es })) {
  if (!i18n.hasResourceBundle(lang, LEGAL_NS)) i18n.addResourceBundle(lang, LEGAL_NS, strings);
}
