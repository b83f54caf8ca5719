/** The users pages' strings (namespace "admin-users"): the list and one user's page. */
import en from "./locales/en/admin-users.json";
import es from "./locales/es/admin-users.json";
import { registerNamespace } from "./register";

export const USERS_NS = "admin-users";
registerNamespace(USERS_NS, { en, es });
