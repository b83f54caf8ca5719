import { useEffect, useSyncExternalStore } from "react";
import { useLocation } from "react-router";
import { applyUpdate, registerServiceWorker, subscribeToUpdate, updateWaiting } from "../lib/service-worker";
import { useSession } from "../lib/session";

/**
 * Where the service worker is registered (docs/installable-app.md): the driver's pages (under
 * /flex/ and /spark/, and the profile and payment pages they reach; signed in as a driver, not an
 * administrator), and only once the page has
 * loaded and the browser is idle, so neither the landing page nor a page's first load pays for it.
 */
export function isDriverPage(pathname: string): boolean {
  return /^\/(flex|spark)\/|^\/(profile|payment)(\/|$)/.test(pathname);
}

/** Runs `task` once the page's load event has passed and the browser is next idle; returns a cancel. */
export function whenLoadedAndIdle(task: () => void): () => void {
  let cancel = () => {};
  const idle = () => {
    if ("requestIdleCallback" in window) {
      const id = requestIdleCallback(task, { timeout: 5000 });
      cancel = () => cancelIdleCallback(id);
    } else {
      const id = setTimeout(task, 1000);
      cancel = () => clearTimeout(id);
    }
  };
  if (document.readyState === "complete") idle();
  else {
    window.addEventListener("load", idle, { once: true });
    cancel = () => window.removeEventListener("load", idle);
  }
  return () => cancel();
}

/**
 * For the frame of the driver's pages: registers the service worker there, and says whether a new
 * version waits, with what takes it (it reloads the page once the new version controls it).
 */
export function useServiceWorkerOnDriverPages(): { updateReady: boolean; applyUpdate: () => void } {
  const { user } = useSession();
  const { pathname } = useLocation();
  const onDriverPage = user !== null && !user.isAdmin && isDriverPage(pathname);
  useEffect(() => {
    if (onDriverPage) return whenLoadedAndIdle(registerServiceWorker);
  }, [onDriverPage]);
  const updateReady = useSyncExternalStore(subscribeToUpdate, updateWaiting, () => false);
  return { updateReady, applyUpdate };
}
