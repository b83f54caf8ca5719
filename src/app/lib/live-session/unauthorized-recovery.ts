import { useCallback, useEffect, useRef } from "react";
import { ApiClientError } from "../api-client";
import type { Tokens } from "../session-tokens";
import type { User } from "../session-value";

/**
 * A 401 on the user call means the ID token is no good even after the pre-call refresh (revoked,
 * keys rotated, account gone): one more refresh, and if that does not help the session is over.
 * Returns `reset`, for a new sign-in, which may try once again.
 */
export function useUnauthorizedRecovery({
  user,
  error,
  tokens,
  refresh,
  reloadUser,
  endLocally,
}: {
  user: User | undefined;
  error: Error | undefined;
  tokens: Tokens | null;
  refresh: () => Promise<Tokens | null>;
  reloadUser: () => Promise<unknown>;
  endLocally: () => void;
}): () => void {
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
      if (fresh) void reloadUser();
      else giveUp();
    });
  }, [error, tokens, refresh, reloadUser, endLocally]);
  return useCallback(() => {
    recovery.current = "idle";
  }, []);
}
