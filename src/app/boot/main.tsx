import { AppRoot, routerReady } from "../app-root";
import { ready } from "../i18n";
import { createRouter } from "../router";
import { expectBoundaries, rootCommitted, untilHydrated } from "./hydration";
import { loadParts } from "./lazy-part";
import { nextTask } from "./next-task";
import { createRoot, hydrateRoot, startTransition, useEffect } from "./react";
import { startEarly } from "./start-early";
import "../styles.css";

const container = document.getElementById("root")!;

/**
 * Runs once the app's first render is on screen: index.html's splash goes, and once the page is
 * wholly hydrated (its Suspense boundaries hydrate after the root, src/app/boot/hydration.tsx) it
 * takes clicks and typing (a pre-rendered page is inert until then, so nothing done before is lost,
 * and nothing changes under a part React has not taken over yet).
 */
function Started() {
  useEffect(() => {
    document.documentElement.classList.remove("render-client");
    document.getElementById("splash")?.remove();
    rootCommitted();
    void untilHydrated().then(() => container.removeAttribute("inert"));
  }, []);
  return null;
}

// index.html's inline script marks a page that cannot be shown as pre-rendered (another address, a
// stored language or session): the app renders it while the splash shows (a stored non-English
// choice fetches its strings first). Otherwise the HTML on screen is what the first render produces,
// and it is hydrated once its route's code and the lazy parts on it have loaded (docs/public-site.md, "Pre-rendered pages").
// Both in a transition: React then renders in slices, yielding to the browser between them,
// instead of one long task that would hold up input on a slow phone.
async function start() {
  // Evaluating this code is a task of its own (index.html's inline script starts it); creating the router,
  // which matches and loads the first page, is the next one.
  await nextTask();
  // The chunks of the page (data-modules, each after those it imports; index.html's inline script
  // fetched them, and for a pre-rendered page waited for them): evaluated a task each rather than all
  // at once when the router asks for the page, which on a slow phone is one long task.
  for (const file of document.documentElement.dataset.modules?.split(" ").filter(Boolean) ?? []) {
    // One that failed to load is left to the router, whose page loader shows the chunk-load error.
    const evaluated = await import(/* @vite-ignore */ file).then(
      () => true,
      () => false,
    );
    if (!evaluated) break;
    await nextTask();
  }
  const router = createRouter();
  const app = (
    <>
      <AppRoot router={router} />
      <Started />
    </>
  );
  if (document.documentElement.classList.contains("render-client")) {
    await ready;
    startTransition(() => createRoot(container).render(app));
    return;
  }
  // The lazy parts the HTML holds (data-parts) load after the route's modules, which may define
  // some; then a task of its own for hydration.
  const parts = document.documentElement.dataset.parts?.split(" ").filter(Boolean) ?? [];
  await Promise.all([ready, routerReady(router).then(() => loadParts(parts))]);
  await nextTask();
  expectBoundaries(container);
  startTransition(() => void hydrateRoot(container, app));
}

// A signed-in page's session code, and the dashboard's reads and chunks, load beside the route
// table from here on rather than after it (start-early.ts).
startEarly(location.pathname);
void start();
