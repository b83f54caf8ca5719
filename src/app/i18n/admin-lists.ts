/** The invitations, leads and audit pages' strings (namespace "admin-lists"). */
import en from "./locales/en/admin-lists.json";
import es from "./locales/es/admin-lists.json";
import { registerNamespace } from "./register";

export const LISTS_NS = "admin-lists";
registerNamespace(LISTS_NS, { en, es });
