import { useCallback, useEffect, useRef } from "react";
import i18n, { setLanguage } from "../../i18n";
import type { User } from "../session-value";

/**
 * At sign-in the account's stored language becomes the interface's (it may have been chosen on
 * another device); later toggles in this tab are the person's own choice and stay. Returns the
 * function a sign-in calls so that the next user read applies it.
 */
export function useAccountLanguage(user: User | undefined): () => void {
  const pending = useRef(false);
  useEffect(() => {
    if (!user || !pending.current) return;
    pending.current = false;
    if (user.language !== i18n.language) void setLanguage(user.language).catch((err: unknown) => console.error("could not apply the account's language", err));
  }, [user]);
  return useCallback(() => {
    pending.current = true;
  }, []);
}
