import { lazy } from "react";
import { createBrowserRouter, type PatchRoutesOnNavigationFunction, type RouteObject } from "react-router";
import { Splash } from "./components/ui/Splash";
import HomePage from "./features/home/HomePage";
import { ErrorPage } from "./layouts/ErrorPage";
import { RootLayout } from "./layouts/RootLayout";
import { HydrationBoundary } from "./lib/hydration";
import { lazyPart } from "./lib/lazy-part";
import type { RouteHandle } from "./lib/page-title";

/**
 * The router. Its first table holds only the frame and the landing page, the one route whose
 * JavaScript has a budget; every other page is in routes.tsx, which the router patches in on the
 * first navigation to an address the first table does not know (and which is fetched when the
 * browser is idle, so that navigation does not wait). New pages go in routes.tsx, not here.
 */

// Toasts are raised from lazily loaded screens; their region loads in its own chunk too.
const Toaster = lazyPart("toaster", () => import("./components/ui/Toast").then((m) => ({ default: m.Toaster })));

// "/" is also the sign-in page: the auth feature's form, embedded, loads after the first paint.
const loadLoginPage = () => import("./features/auth/LoginPage");
const LandingSignIn = lazy(() => loadLoginPage().then(({ default: LoginPage }) => ({ default: () => <LoginPage embedded /> })));

/** The id of the pathless route every page hangs under: inside the frame, with its error boundary. */
export const FRAME_ROUTE_ID = "frame";

export const routes: RouteObject[] = [
  {
    path: "/",
    element: (
      <>
        <RootLayout />
        <HydrationBoundary fallback={null}>
          <Toaster />
        </HydrationBoundary>
      </>
    ),
    // The last resort, for an error in the frame itself.
    errorElement: <ErrorPage />,
    HydrateFallback: Splash,
    children: [
      {
        id: FRAME_ROUTE_ID,
        // A page's error renders inside the frame, under the top bar.
        errorElement: <ErrorPage />,
        children: [
          // Not lazy: the landing page is the first paint of most visits, and a lazy route would
          // wait for its chunk after the entry's (one more round trip before anything shows).
          {
            index: true,
            Component: () => <HomePage signIn={<LandingSignIn />} />,
            handle: { title: "titles.home", loadsAfterHydrating: loadLoginPage } satisfies RouteHandle,
          },
        ],
      },
    ],
  },
];

const loadPageRoutes = () => import("./routes");

/**
 * Adds the rest of the route table; its "*" route answers every address after that. The router
 * skips routes it already has, so a second call (an address with params) adds nothing.
 */
export const patchRoutesOnNavigation: PatchRoutesOnNavigationFunction = async ({ patch }) => {
  const { pageRoutes } = await loadPageRoutes();
  patch(FRAME_ROUTE_ID, pageRoutes);
};

export function createRouter() {
  const router = createBrowserRouter(routes, { patchRoutesOnNavigation });
  // Fetch the rest of the table once the landing page is idle, so the first click does not wait for it.
  const prefetch = () => void loadPageRoutes().catch(() => {});
  if ("requestIdleCallback" in window) requestIdleCallback(prefetch, { timeout: 4000 });
  else setTimeout(prefetch, 2000);
  return router;
}
