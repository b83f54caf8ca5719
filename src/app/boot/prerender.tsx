import { prerender } from "react-dom/static";
import { createMemoryRouter } from "react-router";
import { AppRoot, routerReady } from "../app-root";
import i18n from "../i18n";
import type { RouteHandle } from "../lib/page-title";
import { patchRoutesOnNavigation, routes } from "../router";
import { takeRenderedParts } from "./lazy-part";

/**
 * Build time only (scripts/prerender.ts runs it in Node): the HTML of one page as an English
 * visitor's browser first renders it, signed out (a public page) or, with `storedSession`, with a
 * session stored but not yet loaded (the driver's dashboard, its heading and a loading view), for
 * the Worker's static assets to serve before any JavaScript has run (docs/public-site.md,
 * "Pre-rendered pages"). The same tree as the browser's (app-root.tsx) on a memory router; lazy
 * parts are waited for, so the page is whole.
 */
export async function renderPage(path: string, { storedSession = false } = {}): Promise<{ html: string; title: string; parts: string[] }> {
  const router = createMemoryRouter(routes, { initialEntries: [path], patchRoutesOnNavigation });
  await routerReady(router);
  if (router.state.errors) throw new Error(`${path} rendered an error: ${JSON.stringify(router.state.errors)}`);
  takeRenderedParts();
  const { prelude } = await prerender(<AppRoot router={router} storedSession={storedSession} />);
  const html = await new Response(prelude).text();
  const handle = router.state.matches.findLast((match) => (match.route.handle as RouteHandle | undefined)?.title)?.route.handle as RouteHandle | undefined;
  const appName = i18n.t("appName");
  const title = handle?.title ? `${i18n.t(handle.title)} · ${appName}` : appName;
  router.dispose();
  // The lazy parts in the HTML: the browser loads them before hydrating (boot/lazy-part.tsx).
  return { html, title, parts: takeRenderedParts() };
}
