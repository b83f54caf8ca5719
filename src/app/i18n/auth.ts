/**
 * The identity strings (namespace "auth"): sign-in, registration, challenges, profile, routing
 * notices. They stay out of the landing bundle: the modules that show them import this one, which
 * adds both languages before they render.
 */
import i18n from "./index";
import en from "./locales/en/auth.json";
import es from "./locales/es/auth.json";

export const AUTH_NS = "auth";
export const authResources = { en, es };

for (const [lang, strings] of Object.entries(authResources)) {
  if (!i18n.hasResourceBundle(lang, AUTH_NS)) i18n.addResourceBundle(lang, AUTH_NS, strings);
}
