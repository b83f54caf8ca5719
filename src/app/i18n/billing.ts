/**
 * The driver's money screens (namespace "billing"): payment, invitations, the reseller program and
 * the local checkout pages. They stay out of the landing bundle: the screens import this module,
 * which adds both languages before they render.
 */
import i18n from "./index";
import en from "./locales/en/billing.json";
import es from "./locales/es/billing.json";

export const BILLING_NS = "billing";
export const billingResources = { en, es };

for (const [lang, strings] of Object.entries(billingResources)) {
  if (!i18n.hasResourceBundle(lang, BILLING_NS)) i18n.addResourceBundle(lang, BILLING_NS, strings);
}
