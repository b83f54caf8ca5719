/**
 * The public site's strings (namespace "site"): footer, landing sections, FAQ, contact. They stay
 * out of the landing bundle: the lazily loaded modules that show them import this one, which adds
 * both languages before they render.
 */
import i18n from "./index";
import en from "./locales/en/site.json";
import es from "./locales/es/site.json";

export const SITE_NS = "site";

for (const [lang, strings] of Object.entries({ en, es })) {
  if (!i18n.hasResourceBundle(lang, SITE_NS)) i18n.addResourceBundle(lang, SITE_NS, strings);
}
