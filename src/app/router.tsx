import { lazy, startTransition, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { createBrowserRouter, Link, type PatchRoutesOnNavigationFunction, type RouteObject } from "react-router";
import { HydrationBoundary } from "./boot/hydration";
import { lazyPart } from "./boot/lazy-part";
import { Splash } from "./components/ui/Splash";
import HomePage from "./features/home/HomePage";
import { ErrorPage } from "./layouts/ErrorPage";
import { RootLayout } from "./layouts/RootLayout";
import type { RouteHandle } from "./lib/page-title";

/**
 * The router. Its first table holds only the frame and the landing page, the one route whose
 * JavaScript has a budget; every other page is in routes.tsx, which the router patches in on the
 * first navigation to an address the first table does not know (and which is fetched when the
 * browser is idle, so that navigation does not wait). New pages go in routes.tsx, not here.
 */

// Toasts are raised from lazily loaded screens; their region loads in its own chunk too.
const Toaster = lazyPart("toaster", () => import("./components/ui/Toast").then((m) => ({ default: m.Toaster })));

// "/" is also the sign-in page: the auth feature's form, embedded. Its code (the form, react-hook-form
// and zod: a quarter of the landing page's JavaScript) loads on the visitor's first sign of intent,
// not with the page: a visit that only reads never fetches it (bench/size.ts).
let loginPageLoaded = false;
const loadLoginPage = () =>
  import("./features/auth/LoginPage").then((module) => {
    loginPageLoaded = true;
    return module;
  });
const LandingSignInForm = lazy(() => loadLoginPage().then(({ default: LoginPage }) => ({ default: () => <LoginPage embedded /> })));

/** What counts as intent: any pointer, touch, key, wheel, scroll or focus on the page. */
const INTENT_EVENTS = ["pointerover", "pointerdown", "touchstart", "keydown", "focusin", "wheel", "scroll"] as const;

/**
 * The landing page's sign-in card: the form once the visitor moves, touches, scrolls or types
 * anywhere (it is then there before they reach it), and until then a link to /login, which works
 * without the form's code (for a screen reader's browse mode, which sends the page no events).
 */
function LandingSignIn() {
  const { t } = useTranslation();
  const [wanted, setWanted] = useState(loginPageLoaded);
  useEffect(() => {
    if (wanted) return;
    // In a transition: the link stays until the form's code has arrived, rather than an empty card between.
    const want = () => startTransition(() => setWanted(true));
    for (const type of INTENT_EVENTS) window.addEventListener(type, want, { capture: true, passive: true, once: true });
    return () => {
      for (const type of INTENT_EVENTS) window.removeEventListener(type, want, { capture: true });
    };
  }, [wanted]);
  if (wanted) return <LandingSignInForm />;
  return (
    <div style={{ minHeight: "calc(30rem - 2 * var(--space-6))", display: "flex", alignItems: "center" }}>
      <Link className="button button-large button-block" to="/login">
        {t("nav.signIn")}
      </Link>
    </div>
  );
}

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
            handle: { title: "titles.home" } satisfies RouteHandle,
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
