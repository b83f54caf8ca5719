import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";

/**
 * The app tests' API (msw), which answers every request the app makes. A test adds its handlers
 * (`stubApi`, or `apiServer.use(http.get(…))`) and setup.ts drops them after it; a request none of
 * them takes fails as a network error would: app tests never reach a network. The console's tests
 * still replace fetch themselves (`mockApi` in admin-harness.tsx): they assert calls the moment
 * they are made, which msw records a tick later.
 */
export const apiServer = setupServer(http.all("*", () => HttpResponse.error()));
