/** What the page posts to a waiting service worker to have it take over (src/app/lib/service-worker.ts). */
export const SKIP_WAITING = "SKIP_WAITING";
