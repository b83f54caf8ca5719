import { useCallback, useEffect, useRef, useState } from "react";
import type { User } from "../session-value";

/** Whether two instants fall on the same day of the browser's calendar. */
export function sameLocalDay(a: number, b: number): boolean {
  const x = new Date(a);
  const y = new Date(b);
  return x.getFullYear() === y.getFullYear() && x.getMonth() === y.getMonth() && x.getDate() === y.getDate();
}

/**
 * docs/product.md, accounts and signing in: when the user's service expires today, the notice is
 * raised once per session. `dismiss` hides it; `reset` (sign-in, sign-out) lets the next session raise it.
 */
export function useExpiryNotice(user: User | undefined, now: () => number = Date.now) {
  const [shown, setShown] = useState(false);
  const raised = useRef(false);
  useEffect(() => {
    if (!user || raised.current || user.expirationDateTimestamp === null) return;
    if (sameLocalDay(user.expirationDateTimestamp, now())) {
      raised.current = true;
      setShown(true);
    }
  }, [user, now]);
  const dismiss = useCallback(() => setShown(false), []);
  const reset = useCallback(() => {
    raised.current = false;
    setShown(false);
  }, []);
  return { shown, dismiss, reset };
}
