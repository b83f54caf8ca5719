/**
 * Which navigations the service worker answers, and from which cached page when offline
 * (docs/installable-app.md). Plain functions, so the app's tests run them without a worker.
 */

/** Every address of the SPA; the API's (/api, /api/...) are never the worker's to answer. */
export function isAppNavigation(url: URL): boolean {
  return url.pathname !== "/api" && !url.pathname.startsWith("/api/");
}

/**
 * The precached pages that can stand in for `pathname`, best first: its own pre-rendered page when
 * it has one in the precache (the dashboard, the insights), else the shell (index.html, precached
 * as "/"), which renders any address in the browser.
 */
export function shellsFor(pathname: string): string[] {
  const own = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
  return own === "/" ? ["/"] : [own, "/"];
}
