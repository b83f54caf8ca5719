import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import useSWR, { useSWRConfig } from "swr";
import { api, publicApi, setTokenSource, unwrap } from "../api-client";
import { readStoredSession, writeStoredSession } from "../session-storage";
import { decodeClaims, isExpired, refreshDelay, type Tokens } from "../session-tokens";
import { type LiveSessionProps, type SessionValue, type TokenAnswer, USER_PATH, type User } from "../session-value";
import { useAccountLanguage } from "./account-language";
import { cacheConfig } from "./cache-config";
import { useCrossTabSync } from "./cross-tab";
import { useExpiryNotice } from "./expiry-notice";
import { useLockedRefresh } from "./locked-refresh";
import { useUnauthorizedRecovery } from "./unauthorized-recovery";

/**
 * The live session behind SessionProvider (session.tsx): tokens in localStorage, refresh before
 * calls and on a timer, the user through SWR, sign-in and sign-out. Loaded off the landing route.
 * Each concern is a module of its own beside this one; this component wires them and hands the
 * value up.
 */

const SIGN_OUT_TIMEOUT_MS = 5000;
const userConfig = cacheConfig();

export function LiveSession({ onChange, onSignOut }: LiveSessionProps) {
  const { cache } = useSWRConfig();
  const [tokens, setTokens] = useState<Tokens | null>(readStoredSession);
  // Reading storage is synchronous; only a stored session that already expired keeps us loading.
  const [loading, setLoading] = useState(() => {
    const stored = readStoredSession();
    return stored !== null && isExpired(stored.idToken);
  });
  // Each sign-in in this tab reads the user afresh under a key of its own (see the user's key below).
  const [signIns, setSignIns] = useState(0);

  // The token getter runs outside React; refs hold the current values it reads.
  const tokensRef = useRef(tokens);
  // Bumped on sign-in/out so a refresh that answers afterwards cannot resurrect an ended session.
  const generation = useRef(0);
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

  const { refresh, forgetInflight } = useLockedRefresh(tokensRef, generation, apply);

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
  // Only the first render can start loading (nothing sets it back), so this runs once. The user's
  // read, started in a layout effect, asks for a token first and so starts that refresh: this
  // shares it, or finds it done and the token current, and does not refresh the new one again.
  useEffect(() => {
    if (!loading) return;
    let live = true;
    const current = tokensRef.current;
    void (current && isExpired(current.idToken) ? refresh() : Promise.resolve(null)).finally(() => {
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
    // A timer for a token already replaced does nothing: an expired stored token's timer (due at
    // once) could fire after the start-up refresh had answered but before this effect had moved
    // on, and refresh the fresh token again.
    const timer = setTimeout(() => {
      if (tokensRef.current?.idToken === tokens.idToken) void refresh();
    }, delay);
    return () => clearTimeout(timer);
  }, [tokens, refresh]);

  useCrossTabSync(tokensRef, generation, setTokens);

  const claims = useMemo(() => (tokens ? decodeClaims(tokens.idToken) : null), [tokens]);
  // SWR skips the first fetch of a key fetched in the last 2 s (its de-duplication) and reads the
  // cache instead, which sign-out has just emptied: a quick sign-out and sign-in would wait for a
  // user forever. A key per sign-in avoids that; refreshes keep the key, so no splash on rotation.
  const userKey = tokens && claims ? ([USER_PATH, claims.sub, signIns] as const) : null;
  const { data: user, error, mutate: mutateUser } = useSWR<User, Error>(userKey, async () => (await unwrap(api.flex.v1.user.$get())).Item, userConfig);
  const reloadUser = useCallback(() => mutateUser(), [mutateUser]);

  const expiry = useExpiryNotice(user);
  const resetExpiry = expiry.reset;

  const endLocally = useCallback(() => {
    generation.current++;
    forgetInflight();
    resetExpiry();
    apply(null);
    clearCache();
  }, [forgetInflight, resetExpiry, apply, clearCache]);

  const resetRecovery = useUnauthorizedRecovery({ user, error, tokens, refresh, reloadUser, endLocally });
  const applyAccountLanguage = useAccountLanguage(user);

  const signIn = useCallback(
    (answer: TokenAnswer) => {
      generation.current++;
      forgetInflight();
      resetExpiry();
      resetRecovery();
      clearCache();
      setSignIns((n) => n + 1);
      applyAccountLanguage();
      apply({ idToken: answer.idToken, refreshToken: answer.refreshToken });
    },
    [forgetInflight, resetExpiry, resetRecovery, clearCache, applyAccountLanguage, apply],
  );

  const signOut = useCallback(
    async ({ global = false }: { global?: boolean } = {}) => {
      const current = tokensRef.current;
      // This device's push subscription ends with the session: the server drops its row (named by
      // the endpoint) as it signs out, and the browser ends it, so the next person here gets none of ours.
      // Its module is fetched here, not with this one: the live session loads with the landing,
      // whose JavaScript has a budget (docs/architecture.md, budgets).
      const push = current ? await import("../push-subscription").catch(() => null) : null;
      const pushEndpoint = (await push?.existingPushEndpoint()) ?? null;
      if (current) {
        try {
          // A global sign-out must prove who asks, so it carries the ID token; a plain one only revokes its refresh token.
          await unwrap(
            (global ? api : publicApi).auth["sign-out"].$post(
              { json: { refreshToken: current.refreshToken, ...(global ? { global: true } : {}), ...(pushEndpoint ? { pushEndpoint } : {}) } },
              { init: { signal: AbortSignal.timeout(SIGN_OUT_TIMEOUT_MS) } },
            ),
          );
        } catch (err) {
          // The local session ends regardless; the refresh token simply expires on the server.
          console.error("Sign-out request failed", err);
        }
      }
      if (pushEndpoint) await push?.endPushSubscription();
      endLocally();
      onSignOutRef.current?.();
    },
    [endLocally],
  );

  const refreshSession = useCallback(async () => (await refresh()) !== null, [refresh]);
  const setUser = useCallback((next: User) => void mutateUser(next, { revalidate: false }), [mutateUser]);

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
      expiresToday: expiry.shown,
      dismissExpiryNotice: expiry.dismiss,
      signIn,
      signOut,
      refreshSession,
      reloadUser,
      setUser,
    };
  }, [loading, tokens, claims, user, error, expiry.shown, expiry.dismiss, signIn, signOut, refreshSession, reloadUser, setUser]);

  // Layout effect: the context has the new value before the browser paints.
  useLayoutEffect(() => onChange(value), [value, onChange]);
  return null;
}
