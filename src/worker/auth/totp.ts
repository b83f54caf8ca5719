import { sql } from "drizzle-orm";
import { Secret, TOTP } from "otpauth";
import type { Db } from "../db/client";
import { rateLimits } from "../db/schema";

/**
 * TOTP (RFC 6238), computed by the otpauth library: HMAC-SHA1, 30-second steps, 6 digits — the
 * parameters every authenticator app assumes. A code is accepted one step either side of now to
 * absorb clock skew. What the library does not do is ours: the secret is stored sealed
 * (secret-box.ts), a step is accepted once (claimTotpStep), and wrong codes count towards the
 * account's daily lockout (code-checks.ts).
 */
const TOTP_PERIOD_MS = 30_000;
const TOTP_DIGITS = 6;
const TOTP_SKEW_STEPS = 1;
const TOTP_ISSUER = "Blockpilot";

/** Our parameters for a base32 secret (the form it is stored and shown in). */
function totpFor(secretBase32: string, label?: string): TOTP {
  return new TOTP({
    issuer: TOTP_ISSUER,
    label,
    secret: Secret.fromBase32(secretBase32),
    algorithm: "SHA1",
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_MS / 1000,
  });
}

/** A new shared secret: 20 random bytes (the HMAC-SHA1 block RFC 4226 recommends), base32. */
export function generateTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export function totpStep(timeMs: number): number {
  return Math.floor(timeMs / TOTP_PERIOD_MS);
}

/** The code an authenticator shows at a time (tests use this; sign-in uses verifyTotp). */
export function totpCode(secretBase32: string, timeMs = Date.now()): string {
  return totpFor(secretBase32).generate({ timestamp: timeMs });
}

/** The step a code belongs to if it matches now ±1 step, else null. */
export function verifyTotp(secretBase32: string, code: string, timeMs = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpFor(secretBase32).validate({ token: code, timestamp: timeMs, window: TOTP_SKEW_STEPS });
  return delta === null ? null : totpStep(timeMs) + delta;
}

/** The URI authenticator apps read from the QR code. */
export function otpauthUri(secretBase32: string, accountName: string): string {
  return totpFor(secretBase32, accountName).toString();
}

/**
 * Records that a user has used a step, refusing the step (returns false) if it is not newer than
 * the last one accepted — RFC 6238 §5.2: a code seen once, e.g. over a shoulder or by a phishing
 * relay, must not sign in again. The schema has no column for this, so the last accepted step
 * lives in the rate_limits key-value table (count = step); its reset_at is when that step leaves
 * the acceptance window, after which the expired-rows cleanup may drop the row without weakening the check.
 */
export async function claimTotpStep(db: Db, userId: number, step: number): Promise<boolean> {
  const resetAt = (step + TOTP_SKEW_STEPS + 1) * TOTP_PERIOD_MS;
  const row = await db
    .insert(rateLimits)
    .values({ key: `totpLastStep:${userId}`, count: step, resetAt })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: { count: step, resetAt },
      setWhere: sql`${rateLimits.count} < ${step}`,
    })
    .returning({ count: rateLimits.count })
    .get();
  return row !== undefined;
}
