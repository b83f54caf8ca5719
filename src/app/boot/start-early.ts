import { hasStoredSession } from "../lib/session-storage";
import { EARLY_READS } from "./early-pages";
import { startEarlyReads } from "./early-reads";

/**
 * What a signed-in page opened directly can start as soon as the entry runs, instead of one after
 * another: the entry, then the route table (router.tsx patches it in), then the route's guard and
 * page chunks, then the user, and only then the page's reads. Each download or request started here
 * is the same one the app makes later (the module loader and the typed client hand it over), so
 * nothing is fetched twice. Only the pages drivers open directly (early-pages.ts: the dashboard
 * they keep open, the insights) do their reads early.
 */

/**
 * Asks for a chunk in a task of its own: asking adds a <link> to the page for each file the chunk
 * needs, and starts its download, tens of them for a page, which in one task would make it a long one.
 */
const load = (chunk: () => Promise<unknown>) => setTimeout(() => void chunk().catch(() => {}));

export function startEarly(pathname: string) {
  // Signed-out visits (every pre-rendered page) start nothing.
  if (!hasStoredSession()) return;
  // The live session's code, which SessionProvider would only ask for after the first render, and the
  // frame's parts a signed-in page shows, which the first render would only then ask for.
  load(() => import("../lib/live-session/LiveSession"));
  load(() => import("../layouts/UserMenu"));
  load(() => import("../layouts/SiteFooter"));
  const reads = EARLY_READS[pathname as keyof typeof EARLY_READS];
  if (!reads) return;
  // Their chunks need nothing from here: index.html's inline script fetched them with this code
  // (EARLY_PAGES in page-template.ts), and main.tsx evaluates them before the router asks for them.
  startEarlyReads(reads);
}
