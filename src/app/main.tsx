import { startTransition, useEffect } from "react";
import { createRoot, hydrateRoot } from "react-dom/client";
import { AppRoot, routerReady } from "./app-root";
import { ready } from "./i18n";
import { loadParts } from "./lib/lazy-part";
import { createRouter } from "./router";
import "./styles.css";

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

/** The next task: what comes after runs apart from the task before, so neither grows long. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

// index.html's inline script marks a page that cannot be shown as pre-rendered (another address, a
// stored language or session): the app renders it while the splash shows (a stored non-English
// choice fetches its strings first). Otherwise the HTML on screen is what the first render produces,
// and it is hydrated once its route's code and the lazy parts on it have loaded (docs/public-site.md, "Pre-rendered pages").
// Both in a transition: React then renders in slices, yielding to the browser between them,
// instead of one long task that would hold up input on a slow phone.
async function start() {
  // Evaluating this code is a task of its own (public/boot.js starts it); creating the router,
  // which matches and loads the first page, is the next one.
  await nextTask();
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
  startTransition(() => void hydrateRoot(container, app));
}

void start();
