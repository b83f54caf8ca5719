/** The admin dashboard's strings (namespace "admin-dashboard"), with the dashboard's chunk. */
import en from "./locales/en/admin-dashboard.json";
import es from "./locales/es/admin-dashboard.json";
import { registerNamespace } from "./register";

export const DASHBOARD_NS = "admin-dashboard";
registerNamespace(DASHBOARD_NS, { en, es });
