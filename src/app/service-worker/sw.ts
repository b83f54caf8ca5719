/**
 * The service worker, built by vite-plugin-pwa (injectManifest) to /sw.js, scope "/"
 * (docs/installable-app.md). It precaches the app shell and the driver's pages (the list the build
 * injects as self.__WB_MANIFEST, chosen by scripts/precache-list.ts: never the console's code, never
 * an /api answer), answers a navigation from the network and, offline, from that cache, shows the
 * pushes of src/shared/notifications.ts, and activates a new version only when the page asks.
 */
import { matchPrecache, precacheAndRoute } from "workbox-precaching";
import { registerRoute } from "workbox-routing";
import { pushPayloadSchema } from "../../shared/notifications";
import { SKIP_WAITING } from "./messages";
import { isAppNavigation, shellsFor } from "./navigation";

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: { url: string; revision: string | null }[] };

// Navigations first, so they never take the precache's cache-first route: the network's page is
// the current version's; the cached one is the fallback when there is no network at all.
registerRoute(
  ({ request, url }) => request.mode === "navigate" && isAppNavigation(url),
  async ({ request, url }) => {
    try {
      return await fetch(request);
    } catch (err) {
      for (const shell of shellsFor(url.pathname)) {
        const cached = await matchPrecache(shell);
        if (cached) return cached;
      }
      throw err;
    }
  },
);

precacheAndRoute(self.__WB_MANIFEST);

// A new version waits (the page shows "A new version is ready") until the page says to take over.
self.addEventListener("message", (event) => {
  if ((event.data as { type?: unknown } | null)?.type === SKIP_WAITING) void self.skipWaiting();
});

self.addEventListener("push", (event) => {
  let json: unknown;
  try {
    json = event.data?.json();
  } catch {
    return;
  }
  const parsed = pushPayloadSchema.safeParse(json);
  // What does not parse is not ours to show.
  if (!parsed.success) return;
  const { title, body, tag, url } = parsed.data;
  event.waitUntil(self.registration.showNotification(title, { body, tag, data: { url }, icon: "/icons/icon-192.png", badge: "/icons/badge-72.png" }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const data = event.notification.data as { url?: unknown } | null;
  const path = typeof data?.url === "string" && /^\/(?!\/)/.test(data.url) ? data.url : "/flex/dashboard";
  const target = new URL(path, self.location.origin).href;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      const ours = windows.find((client) => new URL(client.url).origin === self.location.origin);
      if (ours) {
        const focused = await ours.focus();
        // navigate() only works on a window this worker controls (not one opened before it was installed).
        const navigated = await focused.navigate(target).catch(() => null);
        if (navigated) return;
      }
      await self.clients.openWindow(target);
    })(),
  );
});
