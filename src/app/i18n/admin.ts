/**
 * The admin console's strings (namespace "admin"). They stay out of the landing bundle: only the
 * lazily loaded admin pages import this module, which adds both languages before they render.
 */
import i18n from "./index";
import en from "./locales/en/admin.json";
import es from "./locales/es/admin.json";

export const ADMIN_NS = "admin";
export const adminResources = { en, es };

for (const [lang, strings] of Object.entries(adminResources)) {
  if (!i18n.hasResourceBundle(lang, ADMIN_NS)) i18n.addResourceBundle(lang, ADMIN_NS, strings);
}
