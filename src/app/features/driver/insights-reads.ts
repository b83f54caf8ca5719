import { FIRST_INSIGHT_PERIOD } from "../../../shared/insights.ts";

/**
 * What the insights page reads when it opens (the report over its first period), as the typed
 * client writes the address. Started with the page's code when the page is opened directly
 * (boot/early-pages.ts); a plain string, so the entry can import it without the client. A test
 * holds it equal to what the page asks for.
 */
export const INSIGHTS_READS = [`/api/driver/insights?days=${FIRST_INSIGHT_PERIOD}`];
