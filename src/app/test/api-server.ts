import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";

/**
 * The app tests' API (msw), which answers every request the app makes. A test adds its handlers
 * (`stubApi`, `mockApi`, or `apiServer.use(http.get(…))`) and setup.ts drops them after it; a
 * request none of them takes fails as a network error would: app tests never reach a network.
 */
export const apiServer = setupServer(http.all("*", () => HttpResponse.error()));
