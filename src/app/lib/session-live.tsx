import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import useSWR, { type SWRConfiguration, useSWRConfig } from "swr";
import type { IdClaims } from "../../shared/auth";
import i18n, { setLanguage } from "../i18n";
import { ApiClientError, api, publicApi, setTokenSource, unwrap } from "./api-client";
import { withIdentityRetry } from "./identity-retry";
import { EXPIRY_SKEW_MS, SESSION_STORAGE_KEY, type SessionValue, type TokenAnswer, type Tokens, USER_PATH, type User } from "./session";

/**
 * The live session behind SessionProvider (session.tsx): tokens in localStorage, refresh before
 * calls and on a timer, the user through SWR, sign-in and sign-out. Loaded off the landing route.
 */

export { SESSION_STORAGE_KEY };
/** docs/product.md, constants: refresh ten minutes before the ID token expires. */
export const REFRESH_LEAD_MS = 10 * 60_000;
const REFRESH_LOCK = "bp.session.refresh";
const SIGN_OUT_TIMEOUT_MS = 5000;

// ── tokens ──────────────────────────────────────────────────────────────────────────────────

/** The claims of a JWT, read without verifying: the server verifies; the SPA only routes by them. */
export function decodeClaims(idToken: string): IdClaims | null {
  const part = idToken.split(".")[1];
  if (!part) return null;
  try {
    const base64 = part
      .replace(/-/g, "+")
      .replace(/_/g, "/")
      .padEnd(Math.ceil(part.length / 4) * 4, "=");
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const claims = JSON.parse(new TextDecoder().decode(bytes)) as Partial<IdClaims>;
    if (typeof claims.sub !== "string" || typeof claims.exp !== "number") return null;
    return {
      sub: claims.sub,
      sid: typeof claims.sid === "string" ? claims.sid : "",
      exp: claims.exp,
      phone_number: claims.phone_number ?? "",
      phone_number_verified: claims.phone_number_verified === true,
      app: claims.app === "spark" ? "spark" : "flex",
      is_admin: claims.is_admin === true,
    };
  } catch {
    return null;
  }
}

function expiresAt(idToken: string): number {
  return (decodeClaims(idToken)?.exp ?? 0) * 1000;
}

export function isExpired(idToken: string, now = Date.now()): boolean {
  return expiresAt(idToken) - EXPIRY_SKEW_MS <= now;
}

/** Milliseconds until the timer should refresh: ten minutes before expiry, 0 when already past. */
export function refreshDelay(idToken: string, now = Date.now()): number {
  return Math.max(0, expiresAt(idToken) - REFRESH_LEAD_MS - now);
}

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

function writeStoredSession(tokens: Tokens | null) {
  try {
    if (tokens) localStorage.setItem(SESSION_STORAGE_KEY, JSON.stringify({ idToken: tokens.idToken, refreshToken: tokens.refreshToken }));
    else localStorage.removeItem(SESSION_STORAGE_KEY);
  } catch {
    // Storage refused (private mode, quota): the session still lives for this page.
  }
}

function sameLocalDay(a: number, b: number): boolean {
  const x = new Date(a);
  const y = new Date(b);
  return x.getFullYear() === y.getFullYear() && x.getMonth() === y.getMonth() && x.getDate() === y.getDate();
}

// ── data cache (docs/product.md, constants) ────────────────────────────────────────────────────────────────────

type NetworkInformation = { effectiveType?: string; saveData?: boolean };

/** The same test SWR applies to its own defaults: 2G or data-saver counts as slow. */
export function isSlowConnection(): boolean {
  const connection = (globalThis.navigator as (Navigator & { connection?: NetworkInformation }) | undefined)?.connection;
  return !!connection && (connection.effectiveType === "slow-2g" || connection.effectiveType === "2g" || connection.saveData === true);
}

/** A 4xx other than a timeout or rate limit will answer the same again: retrying only adds load. */
function isRetryable(error: unknown): boolean {
  if (!(error instanceof ApiClientError)) return true;
  return error.status === 0 || error.status >= 500 || error.status === 408 || error.status === 429;
}

/**
 * The data cache constants (docs/product.md, constants): 2 s de-duplication, 5 s focus throttle, 5/10 s error retry, 3/5 s
 * loading timeout, jittered exponential back-off. They are SWR's own defaults too (a test pins
 * that), so every useSWR in the app gets them without an app-wide <SWRConfig>, which would put SWR
 * on the landing route. This config adds no retry of a 4xx that would only repeat.
 */
export function cacheConfig(slow = isSlowConnection()): SWRConfiguration {
  return {
    dedupingInterval: 2000,
    focusThrottleInterval: 5000,
    errorRetryInterval: slow ? 10_000 : 5000,
    loadingTimeout: slow ? 5000 : 3000,
    onErrorRetry: (error, _key, config, revalidate, { retryCount }) => {
      if (!isRetryable(error)) return;
      if (config.errorRetryCount !== undefined && retryCount > config.errorRetryCount) return;
      // Jittered exponential back-off: 0.5–1.5 × 2^n × the interval, n capped at 8.
      const timeout = Math.floor((Math.random() + 0.5) * (1 << Math.min(retryCount, 8))) * config.errorRetryInterval;
      setTimeout(revalidate, timeout, { retryCount });
    },
  };
}

// ── the live session ────────────────────────────────────────────────────────────────────────

const userConfig = cacheConfig();

export type LiveSessionProps = {
  /** Receives every new session value (SessionProvider puts it in the context). */
  onChange: (value: SessionValue) => void;
  /** Where sign-out goes; the app passes the router's navigate to "/". */
  onSignOut?: () => void;
};

export function LiveSession({ onChange, onSignOut }: LiveSessionProps) {
  const { cache } = useSWRConfig();
  const [tokens, setTokens] = useState<Tokens | null>(readStoredSession);
  // Reading storage is synchronous; only a stored session that already expired keeps us loading.
  const [loading, setLoading] = useState(() => {
    const stored = readStoredSession();
    return stored !== null && isExpired(stored.idToken);
  });
  const [expiryNotice, setExpiryNotice] = useState(false);
  // Each sign-in in this tab reads the user afresh under a key of its own (see the user's key below).
  const [signIns, setSignIns] = useState(0);

  // The token getter runs outside React; refs hold the current values it reads.
  const tokensRef = useRef(tokens);
  const inflight = useRef<Promise<Tokens | null> | null>(null);
  // Bumped on sign-in/out so a refresh that answers afterwards cannot resurrect an ended session.
  const generation = useRef(0);
  const expiryRaised = useRef(false);
  const onSignOutRef = useRef(onSignOut);
  onSignOutRef.current = onSignOut;

  const apply = useCallback((next: Tokens | null) => {
    tokensRef.current = next;
    writeStoredSession(next);
    setTokens(next);
  }, []);

  // One person's data must not show for the next. Entries are deleted rather than mutated to
  // undefined, which would also make SWR discard any fetch already under way for them.
  const clearCache = useCallback(() => {
    for (const key of [...cache.keys()]) cache.delete(key);
  }, [cache]);

  const refresh = useCallback((): Promise<Tokens | null> => {
    if (inflight.current) return inflight.current;
    const started = generation.current;
    const run = async (): Promise<Tokens | null> => {
      const current = tokensRef.current;
      if (!current) return null;
      // Another tab may already have rotated the refresh token; presenting the old one would look
      // like reuse and revoke the whole family, so adopt that tab's fresh tokens instead.
      const stored = readStoredSession();
      if (stored && stored.refreshToken !== current.refreshToken && !isExpired(stored.idToken)) {
        apply(stored);
        return stored;
      }
      const answer = await withIdentityRetry(() => unwrap(publicApi.auth.refresh.$post({ json: { refreshToken: current.refreshToken } })));
      if (generation.current !== started) return null;
      const next = { idToken: answer.tokens.idToken, refreshToken: answer.tokens.refreshToken };
      apply(next);
      return next;
    };
    const locks = (globalThis.navigator as Navigator | undefined)?.locks;
    const promise = (async () => {
      try {
        // One refresh at a time across tabs (where the browser supports Web Locks).
        return await (locks ? locks.request(REFRESH_LOCK, run) : run());
      } catch (err) {
        // docs/product.md, accounts and signing in: a failed refresh is logged only; the call goes on with the token it has.
        console.error("Session refresh failed", err);
        return null;
      } finally {
        inflight.current = null;
      }
    })();
    inflight.current = promise;
    return promise;
  }, [apply]);

  // Every API call asks for a token here; an expired one is refreshed first. A layout effect, and
  // before useSWR below: SWR starts its first fetch in a layout effect of its own.
  useLayoutEffect(() => {
    setTokenSource(async () => {
      const current = tokensRef.current;
      if (!current) return null;
      if (!isExpired(current.idToken)) return current.idToken;
      const fresh = await refresh();
      return (fresh ?? tokensRef.current)?.idToken ?? null;
    });
    return () => setTokenSource(async () => null);
  }, [refresh]);

  // A stored session that expired while the app was closed: refresh before anything renders.
  // Only the first render can start loading (nothing sets it back), so this runs once.
  useEffect(() => {
    if (!loading) return;
    let live = true;
    void refresh().finally(() => {
      if (live) setLoading(false);
    });
    return () => {
      live = false;
    };
  }, [loading, refresh]);

  // The timer: ten minutes before expiry, or at once when already past that point.
  useEffect(() => {
    if (!tokens) return;
    const delay = Math.min(refreshDelay(tokens.idToken), 2 ** 31 - 1);
    const timer = setTimeout(() => void refresh(), delay);
    return () => clearTimeout(timer);
  }, [tokens, refresh]);

  // Signing in or out in another tab applies here too.
  useEffect(() => {
    const onStorage = (event: StorageEvent) => {
      if (event.key !== SESSION_STORAGE_KEY && event.key !== null) return;
      const stored = readStoredSession();
      if (stored?.idToken === tokensRef.current?.idToken) return;
      if (stored?.refreshToken !== tokensRef.current?.refreshToken) generation.current++;
      tokensRef.current = stored;
      setTokens(stored);
    };
    window.addEventListener("storage", onStorage);
    return () => window.removeEventListener("storage", onStorage);
  }, []);

  const claims = useMemo(() => (tokens ? decodeClaims(tokens.idToken) : null), [tokens]);
  // SWR skips the first fetch of a key fetched in the last 2 s (its de-duplication) and reads the
  // cache instead, which sign-out has just emptied: a quick sign-out and sign-in would wait for a
  // user forever. A key per sign-in avoids that; refreshes keep the key, so no splash on rotation.
  const userKey = tokens && claims ? ([USER_PATH, claims.sub, signIns] as const) : null;
  const { data: user, error, mutate: mutateUser } = useSWR<User, Error>(userKey, async () => (await unwrap(api.flex.v1.user.$get())).Item, userConfig);

  const endLocally = useCallback(() => {
    generation.current++;
    inflight.current = null;
    expiryRaised.current = false;
    setExpiryNotice(false);
    apply(null);
    clearCache();
  }, [apply, clearCache]);

  // A 401 on the user call means the ID token is no good even after the pre-call refresh (revoked,
  // keys rotated, account gone): one more refresh, and if that does not help the session is over.
  const recovery = useRef<"idle" | "trying" | "used">("idle");
  useEffect(() => {
    if (user) recovery.current = "idle";
  }, [user]);
  useEffect(() => {
    if (!(error instanceof ApiClientError) || error.status !== 401 || !tokens || recovery.current === "trying") return;
    const giveUp = () => {
      console.error("Session ended: the server no longer accepts it", error);
      endLocally();
    };
    if (recovery.current === "used") return giveUp();
    recovery.current = "trying";
    void refresh().then((fresh) => {
      recovery.current = "used";
      if (fresh) void mutateUser();
      else giveUp();
    });
  }, [error, tokens, refresh, mutateUser, endLocally]);

  // At sign-in the account's stored language becomes the interface's (it may have been chosen on
  // another device); later toggles in this tab are the person's own choice and stay.
  const applyAccountLanguage = useRef(false);
  useEffect(() => {
    if (!user || !applyAccountLanguage.current) return;
    applyAccountLanguage.current = false;
    if (user.language !== i18n.language) void setLanguage(user.language).catch((err: unknown) => console.error("could not apply the account's language", err));
  }, [user]);

  // docs/product.md, accounts and signing in: when the service expires today, raise the flag once.
  useEffect(() => {
    if (!user || expiryRaised.current || user.expirationDateTimestamp === null) return;
    if (sameLocalDay(user.expirationDateTimestamp, Date.now())) {
      expiryRaised.current = true;
      setExpiryNotice(true);
    }
  }, [user]);

  const signIn = useCallback(
    (answer: TokenAnswer) => {
      generation.current++;
      inflight.current = null;
      expiryRaised.current = false;
      recovery.current = "idle";
      setExpiryNotice(false);
      clearCache();
      setSignIns((n) => n + 1);
      applyAccountLanguage.current = true;
      apply({ idToken: answer.idToken, refreshToken: answer.refreshToken });
    },
    [apply, clearCache],
  );

  const signOut = useCallback(
    async ({ global = false }: { global?: boolean } = {}) => {
      const current = tokensRef.current;
      if (current) {
        try {
          // A global sign-out must prove who asks, so it carries the ID token; a plain one only revokes its refresh token.
          await unwrap(
            (global ? api : publicApi).auth["sign-out"].$post(
              { json: { refreshToken: current.refreshToken, ...(global ? { global: true } : {}) } },
              { init: { signal: AbortSignal.timeout(SIGN_OUT_TIMEOUT_MS) } },
            ),
          );
        } catch (err) {
          // The local session ends regardless; the refresh token simply expires on the server.
          console.error("Sign-out request failed", err);
        }
      }
      endLocally();
      onSignOutRef.current?.();
    },
    [endLocally],
  );

  const refreshSession = useCallback(async () => (await refresh()) !== null, [refresh]);
  const reloadUser = useCallback(() => mutateUser(), [mutateUser]);
  const setUser = useCallback((next: User) => void mutateUser(next, { revalidate: false }), [mutateUser]);
  const dismissExpiryNotice = useCallback(() => setExpiryNotice(false), []);

  const value = useMemo<SessionValue>(() => {
    const hasSession = tokens !== null && claims !== null;
    const currentUser = hasSession ? (user ?? null) : null;
    const currentError = hasSession ? (error ?? null) : null;
    return {
      loading,
      user: currentUser,
      claims: hasSession ? claims : null,
      session: hasSession ? tokens : null,
      userLoading: hasSession && !currentUser && !currentError,
      error: currentError,
      expiresToday: expiryNotice,
      dismissExpiryNotice,
      signIn,
      signOut,
      refreshSession,
      reloadUser,
      setUser,
    };
  }, [loading, tokens, claims, user, error, expiryNotice, dismissExpiryNotice, signIn, signOut, refreshSession, reloadUser, setUser]);

  // Layout effect: the context has the new value before the browser paints.
  useLayoutEffect(() => onChange(value), [value, onChange]);
  return null;
}
