import { decodeJwt } from "jose";
import type { IdClaims } from "../../shared/auth";

/**
 * The session's tokens as the SPA reads them: where they are stored, their claims, and whether the
 * ID token is still current. Pure and free of React and the API client: index.html's inline script
 * (boot/inline-script.ts), the early reads (boot/early-reads.ts) and the live session all apply the
 * same expiry check from here.
 */

/** The e2e tests and the benches seed this key directly: keep its name and its JSON shape. */
export const SESSION_STORAGE_KEY = "bp.session";

/**
 * A token this close to its expiry counts as expired before a call, so it cannot lapse while the
 * request is in flight (or on a client clock a little ahead of the server's).
 */
export const EXPIRY_SKEW_MS = 30_000;

/** docs/product.md, constants: refresh ten minutes before the ID token expires. */
export const REFRESH_LEAD_MS = 10 * 60_000;

export type Tokens = { idToken: string; refreshToken: string };

/** The claims of a JWT, read without verifying (jose's decodeJwt): the server verifies; the SPA only routes by them. */
export function decodeClaims(idToken: string): IdClaims | null {
  let claims: Partial<IdClaims>;
  try {
    claims = decodeJwt(idToken) as Partial<IdClaims>;
  } catch {
    return null;
  }
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
}

function expiresAt(idToken: string): number {
  return (decodeClaims(idToken)?.exp ?? 0) * 1000;
}

/** Expired, or within EXPIRY_SKEW_MS of it (an unreadable token counts as expired). */
export function isExpired(idToken: string, now = Date.now()): boolean {
  return expiresAt(idToken) - EXPIRY_SKEW_MS <= now;
}

/** Milliseconds until the timer should refresh: ten minutes before expiry, 0 when already past. */
export function refreshDelay(idToken: string, now = Date.now()): number {
  return Math.max(0, expiresAt(idToken) - REFRESH_LEAD_MS - now);
}
