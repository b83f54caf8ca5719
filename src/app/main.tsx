import { lazy, StrictMode, Suspense } from "react";
import { createRoot } from "react-dom/client";
import { RouterProvider } from "react-router";
import { ready } from "./i18n";
import { SessionProvider, useSession } from "./lib/session";
import { createRouter } from "./router";
import "./styles.css";

const router = createRouter();

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

// A stored non-English choice fetches its strings first; index.html shows the splash meanwhile.
void ready.then(() =>
  createRoot(document.getElementById("root")!).render(
    <StrictMode>
      {/* The session sits above the router: sign-out leaves for "/" through it. */}
      <SessionProvider onSignOut={() => void router.navigate("/")}>
        <RouterProvider router={router} />
        <SignedInChat />
      </SessionProvider>
    </StrictMode>,
  ),
);
