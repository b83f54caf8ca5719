import { currentStoredIdToken, hasStoredSession } from "../lib/session-storage";
import { INTL_EARLY_PAGES, LOCALE_DATA_WORKER } from "./early-pages";
import { nextTask } from "./next-task";

/**
 * What index.html's inline script does while the HTML is parsed (built from inline-script.ts by
 * scripts/inline-script.ts; the build puts its hash in the CSP, scripts/asset-headers.ts). Kept
 * small and free of the app's code: it runs before any file has loaded.
 *
 * A pre-rendered page (data-prerendered, written by the build: scripts/prerender.ts) shows as it is
 * only at its own address, in English, and to the visit it was rendered for: a public page signed
 * out, the driver's dashboard with a stored session (data-prerendered-session); anything else
 * starts from the splash and the app renders it (docs/public-site.md). The script also starts the
 * app's code (data-entry, written by the build; the development server's page loads main.tsx
 * itself). A page the app renders needs only that code (data-boot), fetched at once. A
 * pre-rendered page needs no script for its first paint, so its code and the modules of what it
 * shows (data-modules) are fetched after the paint. Either way the code runs after the first
 * paint, so evaluating it does not hold the paint back; the timer covers a page opened in a
 * background tab, which does not paint.
 */

/** i18n's LANGUAGE_STORAGE_KEY (the i18n module itself is far too big for this script; a test holds them equal). */
export const STORED_LANGUAGE_KEY = "language";

declare global {
  interface Window {
    /**
     * Reads the inline script started during the parse, for the page the build names (EARLY_PAGES
     * in page-template.ts, data-early-reads); early-reads.ts takes them over.
     */
    blockpilotEarlyReads?: { idToken: string; startedAt: number; answers: Record<string, Promise<Response>> };
  }
}

const files = (list: string) => list.split(" ").filter(Boolean);

/** Resolves once the file has loaded, or failed (the app's chunk loader reports that). */
function addLink(rel: "modulepreload" | "stylesheet", href: string): Promise<unknown> {
  return new Promise((done) => {
    const link = Object.assign(document.createElement("link"), { rel, crossOrigin: "", href });
    link.onload = link.onerror = done;
    document.head.append(link);
  });
}

/** A task each: every link starts a request, and a page's two dozen at once would be one long task. */
const preloadApart = (list: string) =>
  Promise.all(files(list).map((href) => new Promise((next) => setTimeout(next, 0)).then(() => addLink("modulepreload", href))));

/** Evaluates the modules in order, each in a task of its own. */
export async function evaluateApart(list: string[], load = (href: string): Promise<unknown> => import(/* @vite-ignore */ href)) {
  for (const href of list) {
    await load(href);
    await nextTask();
  }
}

/**
 * Loads the browser's locale data on a worker's thread. The first Intl formatter a renderer
 * process builds costs about 20 ms of CPU on the benches' host (V8 lists the locales ICU has, once
 * for the whole process), and the next ones a fraction of a millisecond. On the main thread that
 * was the longest task of a dashboard opened in a fresh tab (station-time.ts builds its first
 * formatter in a task of its own for that reason): 23–25 ms of a first load's 365–440 ms after the
 * first paint. Started with the downloads of the page's code, after the first paint, the worker is
 * done before that code runs.
 */
function loadLocaleDataApart() {
  if (typeof Worker === "undefined") return;
  try {
    new Worker(LOCALE_DATA_WORKER);
  } catch {
    // Refused (a policy, a browser without workers): station-time.ts loads it on the main thread.
  }
}

/** Whether the page's pre-rendered HTML is what this visit shows. */
export function showsPrerendered(html: HTMLElement, visit: { path: string; signedIn: boolean; spanish: boolean }): boolean {
  // A public page is for a signed-out visit; the dashboard's, for one with a stored session.
  const forSession = html.getAttribute("data-prerendered-session") === "stored";
  return html.getAttribute("data-prerendered") === visit.path && !visit.spanish && visit.signedIn === forSession;
}

export function startFirstLoad(html: HTMLElement) {
  const signedIn = hasStoredSession();
  let spanish = false;
  try {
    spanish = localStorage.getItem(STORED_LANGUAGE_KEY) === "es";
  } catch {}
  const shown = showsPrerendered(html, { path: location.pathname, signedIn, spanish });
  if (!shown) html.classList.add("render-client");
  const entry = html.getAttribute("data-entry");
  if (!entry) return;
  const boot = html.getAttribute("data-boot") ?? "";
  // Not the page the HTML holds, so not its modules (main.tsx evaluates data-modules). But the
  // page a signed-in driver keeps open, opened directly, has its chunks fetched with the code.
  let loaded: Promise<unknown> = Promise.resolve();
  const early = signedIn && location.pathname === html.getAttribute("data-early-path");
  if (!shown) {
    html.setAttribute("data-modules", early ? (html.getAttribute("data-early-modules") ?? "") : "");
    const styles = early ? files(html.getAttribute("data-early-styles") ?? "") : [];
    loaded = Promise.all([
      ...files(`${boot} ${html.getAttribute("data-modules")}`).map((href) => addLink("modulepreload", href)),
      // Its style sheets too (not render-blocking, added by a script), which the app's chunk
      // loader would otherwise fetch one chunk after another, each before the next chunk runs.
      ...styles.map((href) => addLink("stylesheet", href)),
    ]);
  }
  // Its reads too, shown or not, with the stored ID token while it is current (early-reads.ts
  // takes them over; an expired token is refreshed by the app first, which then asks itself).
  if (early) {
    const startedAt = Date.now();
    const idToken = currentStoredIdToken(startedAt);
    if (idToken) {
      const answers: Record<string, Promise<Response>> = {};
      for (const path of files(html.getAttribute("data-early-reads") ?? "")) {
        const answer = fetch(path, { headers: { Accept: "application/json", Authorization: `Bearer ${idToken}` } });
        answer.catch(() => {});
        answers[path] = answer;
      }
      window.blockpilotEarlyReads = { idToken, startedAt, answers };
    }
  }
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    // After the paint (a script fetched before it would count as holding it back), while the chunks download.
    if (early && INTL_EARLY_PAGES.includes(location.pathname)) loadLocaleDataApart();
    (shown ? preloadApart(`${boot} ${html.getAttribute("data-modules") ?? ""}`) : loaded)
      // The entry's chunks (React's, vite.config.ts), a task each, then the entry's own: evaluated
      // with it, they would be one long task on a slow phone.
      .then(() => evaluateApart([...files(boot).filter((href) => href !== entry), entry]))
      .catch((err: unknown) => console.error("The app could not be loaded", err));
  };
  // After the first contentful paint has been shown (not only drawn: a request started between
  // the two can finish before it); a frame, then a task, where paint timing is not supported.
  document.addEventListener("DOMContentLoaded", () => {
    try {
      new PerformanceObserver((list, observer) => {
        if (!list.getEntriesByName("first-contentful-paint").length) return;
        observer.disconnect();
        setTimeout(start, 0);
      }).observe({ type: "paint", buffered: true });
    } catch {
      requestAnimationFrame(() => setTimeout(start, 0));
    }
    setTimeout(start, 1000);
  });
}
