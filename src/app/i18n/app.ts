/**
 * The installable app's strings (namespace "app"): the offline notice and the new-version prompt
 * (docs/installable-app.md). They stay out of the landing bundle: the driver's frame and the guard
 * import this module, which adds both languages before they render.
 */
import i18n from "./index";
import en from "./locales/en/app.json";
import es from "./locales/es/app.json";

export const APP_NS = "app";

for (const [lang, strings] of Object.entries({ en, es })) {
  if (!i18n.hasResourceBundle(lang, APP_NS)) i18n.addResourceBundle(lang, APP_NS, strings);
}
