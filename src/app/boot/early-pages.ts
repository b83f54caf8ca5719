import { DASHBOARD_READS } from "../features/driver/dashboard-reads.ts";
import { INSIGHTS_READS } from "../features/driver/insights-reads.ts";
import { USER_PATH } from "../lib/session-value.ts";

/**
 * The signed-in pages a driver opens directly (a bookmark, a text's link) and the reads each starts
 * with: the user's, then the page's own. Opened with a stored session, such a page's reads start
 * during the parse (index.html's inline script, from the page's HTML: data-early-reads) or when
 * the entry runs (start-early.ts), beside its code instead of after it, and its HTML is
 * pre-rendered as it first renders (page-template.ts names the source modules it shows). Plain
 * strings, so the entry imports them without the pages.
 */
export const EARLY_READS = {
  "/flex/dashboard": [USER_PATH, ...DASHBOARD_READS],
  "/flex/insights": [USER_PATH, ...INSIGHTS_READS],
} as const satisfies Record<string, readonly string[]>;
