/** The admin billing page's strings (namespace "admin-billing"). */
import en from "./locales/en/admin-billing.json";
import es from "./locales/es/admin-billing.json";
import { registerNamespace } from "./register";

export const BILLING_NS = "admin-billing";
registerNamespace(BILLING_NS, { en, es });
