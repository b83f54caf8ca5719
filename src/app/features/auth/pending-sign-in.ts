import type { App } from "./api";

/**
 * After registering, the password is kept in memory (never storage, never history state) until the
 * phone is confirmed, so the new driver is signed in at once instead of typing it again. A reload
 * forgets it; the confirm screen then sends them to sign in.
 */
type Pending = { phoneNumber: string; app: App; password: string; at: number };
const TTL_MS = 30 * 60_000;
let pending: Pending | null = null;

export function rememberSignIn(phoneNumber: string, app: App, password: string) {
  pending = { phoneNumber, app, password, at: Date.now() };
}

/** The remembered password for this phone and app, once; null when there is none (or it is stale). */
export function takeSignIn(phoneNumber: string, app: App): string | null {
  const found = pending;
  pending = null;
  if (!found || found.phoneNumber !== phoneNumber || found.app !== app || Date.now() - found.at > TTL_MS) return null;
  return found.password;
}
