import i18n from "./index";

/**
 * Adds a lazily loaded namespace in both languages. Each admin page group has its own
 * (admin-dashboard.ts, admin-users.ts…): its page imports that module, so the strings arrive in
 * the page's chunk and never in the landing bundle.
 */
export function registerNamespace(ns: string, resources: Record<"en" | "es", Record<string, unknown>>) {
  for (const [lang, strings] of Object.entries(resources)) {
    if (!i18n.hasResourceBundle(lang, ns)) i18n.addResourceBundle(lang, ns, strings);
  }
}
