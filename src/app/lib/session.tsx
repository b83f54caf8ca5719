import { type ComponentType, createContext, type ReactNode, startTransition, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react";
import { hasStoredSession } from "./session-storage";
import type { LiveSessionProps, SessionValue, TokenAnswer } from "./session-value";

/**
 * The session (docs/product.md, accounts and signing in; docs/architecture.md, identity): tokens kept in localStorage, the ID token's claims, and the
 * signed-in user from GET /api/flex/v1/user. Every API call asks for a current ID token; an
 * expired one is refreshed first, and a timer refreshes ten minutes before expiry.
 *
 * This module is on the landing route, whose JavaScript has a budget (docs/architecture.md, budgets): it holds only
 * the context and a provider that loads the live session (live-session/: tokens, refresh, the
 * user through SWR) in a chunk of its own right after the first render. Tokens are
 * kept under the localStorage key "bp.session" as { idToken, refreshToken }.
 */

export type { SessionValue, TokenAnswer, User } from "./session-value";

const noop = () => {};
const asyncNoop = async () => {};

/** A signed-out session; tests build theirs from it with StaticSessionProvider. */
export const signedOutSession: SessionValue = {
  loading: false,
  user: null,
  claims: null,
  session: null,
  userLoading: false,
  error: null,
  expiresToday: false,
  dismissExpiryNotice: noop,
  signIn: noop,
  signOut: asyncNoop,
  refreshSession: async () => false,
  reloadUser: asyncNoop,
  setUser: noop,
};

export const SessionContext = createContext<SessionValue>(signedOutSession);

export function useSession(): SessionValue {
  return useContext(SessionContext);
}

export function StaticSessionProvider({ value, children }: { value: SessionValue; children: ReactNode }) {
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

/** Until the live session has loaded, screens that need one show the splash. */
export const startingSession: SessionValue = { ...signedOutSession, loading: true };

/**
 * The real session. The live part renders nothing and hands its value up, so the app below is
 * never re-mounted when it arrives.
 */
export function SessionProvider({
  children,
  onSignOut,
  stored,
}: {
  children: ReactNode /** Where sign-out goes: the app passes the router's navigate to "/". */;
  onSignOut?: () => void;
  /** Whether a session is stored, when the caller knows better than storage: the build's pre-rendering of a signed-in page (prerender.tsx). */
  stored?: boolean;
}) {
  // Nothing stored means signed out, known at once: the public pages render (and the pre-rendered
  // HTML hydrates, docs/public-site.md) without waiting for the live session's code. A stored
  // session may have expired or been revoked, so only the live session can say; until then, loading.
  const [value, setValue] = useState<SessionValue>(() => ((stored ?? hasStoredSession()) ? startingSession : signedOutSession));
  const [Live, setLive] = useState<ComponentType<LiveSessionProps> | null>(null);
  // A sign-in before the live session's code has arrived waits for it (the app shows loading) and
  // is then handed to it, so it is the same sign-in as any other (the account's language applied…).
  const early = useRef<TokenAnswer | null>(null);
  const shown = useMemo<SessionValue>(
    () =>
      value === signedOutSession
        ? {
            ...value,
            signIn: (tokens) => {
              early.current = tokens;
              setValue(startingSession);
            },
          }
        : value,
    [value],
  );
  // Until the session first settles (signed out; or signed in, its user read or failed), its
  // answers change nothing a person is waiting on: the pages show their loading view.
  const settled = useRef(false);
  const receive = useCallback((live: SessionValue) => {
    const tokens = early.current;
    early.current = null;
    const settling = !settled.current;
    if (!live.loading && !live.userLoading) settled.current = true;
    // The live session answers again once signed in.
    if (tokens) live.signIn(tokens);
    // Those answers in a transition. They come from a layout effect, where a plain update
    // re-renders every reader of the session synchronously; on a pre-rendered page (a public one
    // signed out, a driver's page with a stored session) they also reach the parts React is still
    // hydrating, which React then hydrates in that same task, and with a stored session the one
    // that brings the user has the guard render the whole page in it, a long task on a slow phone.
    // In a transition React renders
    // in slices. Every later answer (sign-in, sign-out, a refreshed token, an updated user) stays
    // immediate.
    else if (settling) startTransition(() => setValue(live));
    else setValue(live);
  }, []);
  useEffect(() => {
    import("./live-session/LiveSession").then(
      (m) => setLive(() => m.LiveSession),
      (err: unknown) => {
        // Without its code there is no session: screens that need one send the visitor to "/".
        console.error("The session could not be loaded", err);
        setValue(signedOutSession);
      },
    );
  }, []);
  return (
    <>
      {Live && <Live onChange={receive} onSignOut={onSignOut} />}
      <SessionContext.Provider value={shown}>{children}</SessionContext.Provider>
    </>
  );
}
