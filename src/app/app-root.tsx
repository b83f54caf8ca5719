import { lazy, StrictMode, Suspense } from "react";
import { type DataRouter, RouterProvider } from "react-router";
import { SessionProvider, useSession } from "./lib/session";

// The support chat is only for signed-in users; its code stays off the landing route.
const ChatWidget = lazy(() => import("./features/auth/ChatWidget"));
function SignedInChat() {
  const { user } = useSession();
  return user ? (
    <Suspense fallback={null}>
      <ChatWidget />
    </Suspense>
  ) : null;
}

/**
 * The whole app around a router: the browser's (main.tsx) or, at build time, a memory router on
 * one public page (prerender.tsx). Both render this same tree, so the pre-rendered HTML is what
 * the browser's first render produces and hydrates without a mismatch.
 */
export function AppRoot({
  router,
  storedSession,
}: {
  router: DataRouter;
  /** The build pre-renders a signed-in page as a visit with a stored session first renders it. */
  storedSession?: boolean;
}) {
  return (
    <StrictMode>
      {/* The session sits above the router: sign-out leaves for "/" through it. */}
      <SessionProvider onSignOut={() => void router.navigate("/")} stored={storedSession}>
        <RouterProvider router={router} />
        <SignedInChat />
      </SessionProvider>
    </StrictMode>
  );
}

/** Resolves once the router has matched and loaded the first page (its lazy route modules). */
export function routerReady(router: DataRouter): Promise<void> {
  if (router.state.initialized) return Promise.resolve();
  return new Promise((resolve) => {
    const stop = router.subscribe((state) => {
      if (!state.initialized) return;
      stop();
      resolve();
    });
  });
}
