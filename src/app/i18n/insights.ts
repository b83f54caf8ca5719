/** The insights page's strings (namespace "insights"): earnings, the market, findings and the what-if; loaded with the page only. */
import en from "./locales/en/insights.json";
import es from "./locales/es/insights.json";
import { registerNamespace } from "./register";

export const INSIGHTS_NS = "insights";
registerNamespace(INSIGHTS_NS, { en, es });
