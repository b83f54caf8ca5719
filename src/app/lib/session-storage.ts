import { decodeClaims, isExpired, SESSION_STORAGE_KEY, type Tokens } from "./session-tokens";

/**
 * The session kept in localStorage under "bp.session" as { idToken, refreshToken }. Every read
 * survives a storage that refuses (a private window, the build's pre-rendering): nothing stored.
 */

export function readStoredSession(): Tokens | null {
  try {
    const raw = localStorage.getItem(SESSION_STORAGE_KEY);
    if (!raw) return null;
    const value = JSON.parse(raw) as Partial<Tokens>;
    if (typeof value.idToken !== "string" || typeof value.refreshToken !== "string") return null;
    if (!decodeClaims(value.idToken)) return null;
    return { idToken: value.idToken, refreshToken: value.refreshToken };
  } catch {
    return null;
  }
}

export function writeStoredSession(tokens: Tokens | null) {
  try {
    if (tokens) localStorage.setItem(SESSION_STORAGE_KEY, JSON.stringify({ idToken: tokens.idToken, refreshToken: tokens.refreshToken }));
    else localStorage.removeItem(SESSION_STORAGE_KEY);
  } catch {
    // Storage refused (private mode, quota): the session still lives for this page.
  }
}

/** Whether a session is stored: it may still have expired or been revoked, which only the live session can tell. */
export function hasStoredSession(): boolean {
  try {
    return localStorage.getItem(SESSION_STORAGE_KEY) !== null;
  } catch {
    return false;
  }
}

/** The stored ID token while it is current (not within the expiry skew); null otherwise. */
export function currentStoredIdToken(now = Date.now()): string | null {
  try {
    const idToken: unknown = JSON.parse(localStorage.getItem(SESSION_STORAGE_KEY) ?? "{}").idToken;
    return typeof idToken === "string" && !isExpired(idToken, now) ? idToken : null;
  } catch {
    // No storage, or something that is not JSON.
    return null;
  }
}
