/**
 * The service worker from the page's side (docs/installable-app.md): registering /sw.js (scope "/"),
 * the registration for those who need it (push subscriptions), and a new version waiting to take
 * over. Only the driver's pages call registerServiceWorker (src/app/boot/service-worker-hook.ts),
 * once the page has loaded and the browser is idle, so the landing page never installs one.
 */
import { SKIP_WAITING } from "../service-worker/messages";

export const SERVICE_WORKER_URL = "/sw.js";
/** `npm run dev` serves no /sw.js (the build writes it): there, nothing registers and the registration is null. */
const SERVED = import.meta.env.MODE !== "development";
/** A dashboard stays open for hours: it asks for a new version this often (the browser also does on each navigation). */
const UPDATE_CHECK_MS = 60 * 60 * 1000;

let registration: Promise<ServiceWorkerRegistration | null> | null = null;
let waiting: ServiceWorker | null = null;
const listeners = new Set<() => void>();

function setWaiting(worker: ServiceWorker | null) {
  if (worker === waiting) return;
  waiting = worker;
  for (const listener of listeners) listener();
}

/** Follows a registration's new versions: one that has installed while another controls the page waits for the page's word. */
function watchUpdates(reg: ServiceWorkerRegistration) {
  const container = navigator.serviceWorker;
  // The first install controls no page yet: nothing replaces anything, so there is nothing to offer.
  if (reg.waiting && container.controller) setWaiting(reg.waiting);
  reg.addEventListener("updatefound", () => {
    const installing = reg.installing;
    installing?.addEventListener("statechange", () => {
      if (installing.state === "installed" && container.controller) setWaiting(installing);
    });
  });
}

/** Registers the service worker (once; later calls do nothing). Without service workers in the browser (or under `npm run dev`), nothing happens. */
export function registerServiceWorker(): void {
  if (registration) return;
  if (!SERVED || typeof navigator === "undefined" || !("serviceWorker" in navigator)) {
    registration = Promise.resolve(null);
    return;
  }
  registration = navigator.serviceWorker.register(SERVICE_WORKER_URL, { scope: "/", updateViaCache: "none" }).then(
    (reg) => {
      watchUpdates(reg);
      setInterval(() => void reg.update().catch(() => {}), UPDATE_CHECK_MS);
      return reg;
    },
    (err: unknown) => {
      console.error("The service worker could not be registered", err);
      return null;
    },
  );
}

/**
 * The service worker's registration: this page's once registered; on a page that has not registered
 * it (yet), the one an earlier page installed. Null where the browser has none, registering failed,
 * or none is installed.
 */
export function serviceWorkerRegistration(): Promise<ServiceWorkerRegistration | null> {
  if (registration) return registration;
  if (typeof navigator === "undefined" || !("serviceWorker" in navigator)) return Promise.resolve(null);
  return navigator.serviceWorker.getRegistration("/").then(
    (reg) => reg ?? null,
    () => null,
  );
}

/** Whether a new version is waiting (for useSyncExternalStore, with subscribeToUpdate). */
export function updateWaiting(): boolean {
  return waiting !== null;
}

export function subscribeToUpdate(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Has the waiting version take over, and reloads the page once it controls it (once). */
export function applyUpdate(): void {
  const worker = waiting;
  if (!worker) return;
  navigator.serviceWorker.addEventListener("controllerchange", () => window.location.reload(), { once: true });
  worker.postMessage({ type: SKIP_WAITING });
}
