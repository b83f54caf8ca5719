import { startTransition, useEffect } from "react";
import { createRoot, hydrateRoot } from "react-dom/client";
import { AppRoot, routerReady } from "./app-root";
import { ready } from "./i18n";
import { loadParts } from "./lib/lazy-part";
import { createRouter } from "./router";
import "./styles.css";

const router = createRouter();
const container = document.getElementById("root")!;

/**
 * Runs once the app's first render is on screen: the page takes clicks and typing (a pre-rendered
 * page is inert until it is hydrated, so nothing done before is lost) and index.html's splash goes.
 */
function Started() {
  useEffect(() => {
    container.removeAttribute("inert");
    document.documentElement.classList.remove("render-client");
    document.getElementById("splash")?.remove();
  }, []);
  return null;
}

const app = (
  <>
    <AppRoot router={router} />
    <Started />
  </>
);

// index.html's inline script marks a page that cannot be shown as pre-rendered (another address, a
// stored language or session): the app renders it while the splash shows (a stored non-English
// choice fetches its strings first). Otherwise the HTML on screen is what the first render produces,
// and it is hydrated once its route's code and the lazy parts on it have loaded (docs/public-site.md, "Pre-rendered pages").
// Both in a transition: React then renders in slices, yielding to the browser between them,
// instead of one long task that would hold up input on a slow phone.
if (document.documentElement.classList.contains("render-client")) {
  void ready.then(() => startTransition(() => createRoot(container).render(app)));
} else {
  // The lazy parts the HTML holds (data-parts) load after the route's modules, which may define
  // some; then a task of its own for hydration, apart from the one that evaluated the code.
  const parts = document.documentElement.dataset.parts?.split(" ").filter(Boolean) ?? [];
  void Promise.all([ready, routerReady(router).then(() => loadParts(parts))])
    .then(() => new Promise((resolve) => setTimeout(resolve, 0)))
    .then(() => startTransition(() => void hydrateRoot(container, app)));
}
