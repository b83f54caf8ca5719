/**
 * The driver product's strings (namespace "driver"): connecting the platform account, filters,
 * dashboard, calendar. They stay out of the landing bundle: the lazily loaded driver screens (and
 * the profile's connection section) import this module, which adds both languages before they render.
 */
import i18n from "./index";
import en from "./locales/en/driver.json";
import es from "./locales/es/driver.json";

export const DRIVER_NS = "driver";

for (const [lang, strings] of Object.entries({ en, es })) {
  if (!i18n.hasResourceBundle(lang, DRIVER_NS)) i18n.addResourceBundle(lang, DRIVER_NS, strings);
}
