import { type RefObject, useEffect } from "react";
import { readStoredSession } from "../session-storage";
import { SESSION_STORAGE_KEY, type Tokens } from "../session-tokens";

/**
 * Signing in or out, or a refresh, in another tab applies here too (the storage event). A new
 * refresh token means another session: `generation` is bumped so a refresh of the old one is dropped.
 */
export function useCrossTabSync(tokens: RefObject<Tokens | null>, generation: RefObject<number>, setTokens: (next: Tokens | null) => void) {
  useEffect(() => {
    const onStorage = (event: StorageEvent) => {
      if (event.key !== SESSION_STORAGE_KEY && event.key !== null) return;
      const stored = readStoredSession();
      if (stored?.idToken === tokens.current?.idToken) return;
      if (stored?.refreshToken !== tokens.current?.refreshToken) generation.current++;
      tokens.current = stored;
      setTokens(stored);
    };
    window.addEventListener("storage", onStorage);
    return () => window.removeEventListener("storage", onStorage);
  }, [tokens, generation, setTokens]);
}
