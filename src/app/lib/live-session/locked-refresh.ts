import { type RefObject, useCallback, useRef } from "react";
import { publicApi, unwrap } from "../api-client";
import { withIdentityRetry } from "../identity-retry";
import { readStoredSession } from "../session-storage";
import { isExpired, type Tokens } from "../session-tokens";

const REFRESH_LOCK = "bp.session.refresh";

/**
 * The one refresh of the tokens: a call in flight is shared, one tab at a time refreshes (Web
 * Locks, where the browser has them), and fresh tokens another tab already stored are adopted
 * rather than presenting a refresh token that tab has rotated. `generation` is bumped on sign-in
 * and sign-out, so a refresh that answers afterwards cannot bring an ended session back.
 */
export function useLockedRefresh(tokens: RefObject<Tokens | null>, generation: RefObject<number>, apply: (next: Tokens | null) => void) {
  const inflight = useRef<Promise<Tokens | null> | null>(null);

  const refresh = useCallback((): Promise<Tokens | null> => {
    if (inflight.current) return inflight.current;
    const started = generation.current;
    const run = async (): Promise<Tokens | null> => {
      const current = tokens.current;
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
  }, [tokens, generation, apply]);

  /** Forgets a refresh in flight (its answer is then dropped by the generation check). */
  const forgetInflight = useCallback(() => {
    inflight.current = null;
  }, []);

  return { refresh, forgetInflight };
}
