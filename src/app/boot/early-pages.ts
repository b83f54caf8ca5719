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

/**
 * The early pages whose first render writes times in a station's zone through Intl (the dashboard;
 * the insights build no formatter): their inline script has the browser's locale data loaded off
 * the main thread (first-load.ts, `loadLocaleDataApart`).
 */
export const INTL_EARLY_PAGES: readonly string[] = ["/flex/dashboard"];

/** The worker that loads it (public/): one formatter built, then it ends. */
export const LOCALE_DATA_WORKER = "/locale-data-worker.js";
