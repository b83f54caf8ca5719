/**
 * The form strings (namespace "forms"): validation messages by code (src/shared/validation.ts) and
 * the new-password fields. Every form loads them through src/app/lib/forms.ts, off the landing route.
 */
import i18n from "./index";
import en from "./locales/en/forms.json";
import es from "./locales/es/forms.json";

export const FORMS_NS = "forms";

for (const [lang, strings] of Object.entries({ en, es })) {
  if (!i18n.hasResourceBundle(lang, FORMS_NS)) i18n.addResourceBundle(lang, FORMS_NS, strings);
}
