import type { IdClaims, UserItem } from "../../shared/auth";
import type { Tokens } from "./session-tokens";

/**
 * What the session hands the app (session.tsx puts it in the context; the live session,
 * live-session/LiveSession.tsx, computes it). Types only, besides the user's address, so both sides
 * import them without importing each other.
 */

export type TokenAnswer = Tokens & { expiresIn?: number };

/** The signed-in user, as GET /api/flex/v1/user answers it. */
export type User = UserItem;
/** Where the live session reads the user (also the key of that read in SWR's cache). */
export const USER_PATH = "/api/flex/v1/user";

export type SessionValue = {
  /** True until the stored session has been read (and refreshed when it had expired). */
  loading: boolean;
  user: User | null;
  claims: IdClaims | null;
  session: Tokens | null;
  /** True while a session exists, the user is not loaded and there is no error. */
  userLoading: boolean;
  error: Error | null;
  /** Raised once when the user's service expires today; cleared by dismissExpiryNotice. */
  expiresToday: boolean;
  dismissExpiryNotice: () => void;
  signIn: (tokens: TokenAnswer) => void;
  signOut: (options?: { global?: boolean }) => Promise<void>;
  /** Rotates the tokens now (e.g. after confirming the phone, so the claims say verified). */
  refreshSession: () => Promise<boolean>;
  reloadUser: () => Promise<unknown>;
  setUser: (user: User) => void;
};

/** What the live session's component takes. */
export type LiveSessionProps = {
  /** Receives every new session value (SessionProvider puts it in the context). */
  onChange: (value: SessionValue) => void;
  /** Where sign-out goes; the app passes the router's navigate to "/". */
  onSignOut?: () => void;
};
