import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { rateLimits } from "../db/schema";
import { timingSafeEqual } from "./password";

/**
 * TOTP (RFC 6238 over RFC 4226 HOTP): HMAC-SHA1, 30-second steps, 6 digits — the parameters every
 * authenticator app assumes. A code is accepted one step either side of now to absorb clock skew.
 */
export const TOTP_PERIOD_MS = 30_000;
export const TOTP_DIGITS = 6;
export const TOTP_SKEW_STEPS = 1;
export const TOTP_ISSUER = "Blockpilot";

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** Decodes RFC 4648 base32, ignoring case, spaces and padding (as people copy secrets). */
export function base32Decode(text: string): Uint8Array<ArrayBuffer> {
  const clean = text.toUpperCase().replace(/[\s=]/g, "");
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error("Invalid base32 secret");
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}

/** A new shared secret: 20 random bytes (the HMAC-SHA1 block RFC 4226 recommends), base32. */
export function generateTotpSecret(): string {
  return base32Encode(crypto.getRandomValues(new Uint8Array(20)));
}

export function totpStep(timeMs: number): number {
  return Math.floor(timeMs / TOTP_PERIOD_MS);
}

async function hotp(key: CryptoKey, counter: number): Promise<string> {
  const message = new Uint8Array(8);
  new DataView(message.buffer).setBigUint64(0, BigInt(counter));
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, message));
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(binary % 10 ** TOTP_DIGITS).padStart(TOTP_DIGITS, "0");
}

function hmacKey(secret: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-1" }, false, ["sign"]);
}

/** The code for a step (tests and RFC vectors use this; sign-in uses verifyTotp). */
export async function totpCodeForStep(secret: Uint8Array<ArrayBuffer>, step: number): Promise<string> {
  return hotp(await hmacKey(secret), step);
}

export async function totpCode(secretBase32: string, timeMs = Date.now()): Promise<string> {
  return totpCodeForStep(base32Decode(secretBase32), totpStep(timeMs));
}

/**
 * The step a code belongs to if it matches now ±1 step, else null. Every candidate step is
 * computed and compared, so the time taken does not reveal which one matched.
 */
export async function verifyTotp(secretBase32: string, code: string, timeMs = Date.now()): Promise<number | null> {
  if (!/^\d{6}$/.test(code)) return null;
  const key = await hmacKey(base32Decode(secretBase32));
  const now = totpStep(timeMs);
  const given = new TextEncoder().encode(code);
  let matched: number | null = null;
  for (let step = now - TOTP_SKEW_STEPS; step <= now + TOTP_SKEW_STEPS; step++) {
    const expected = new TextEncoder().encode(await hotp(key, step));
    if (timingSafeEqual(expected, given) && matched === null) matched = step;
  }
  return matched;
}

/** The URI authenticator apps read from the QR code. */
export function otpauthUri(secretBase32: string, accountName: string): string {
  const label = `${encodeURIComponent(TOTP_ISSUER)}:${encodeURIComponent(accountName)}`;
  const params = new URLSearchParams({
    secret: secretBase32,
    issuer: TOTP_ISSUER,
    algorithm: "SHA1",
    digits: String(TOTP_DIGITS),
    period: String(TOTP_PERIOD_MS / 1000),
  });
  return `otpauth://totp/${label}?${params.toString()}`;
}

/**
 * Records that a user has used a step, refusing the step (returns false) if it is not newer than
 * the last one accepted — RFC 6238 §5.2: a code seen once, e.g. over a shoulder or by a phishing
 * relay, must not sign in again. The schema has no column for this, so the last accepted step
 * lives in the rate_limits key-value table (count = step); its reset_at is when that step leaves
 * the acceptance window, after which housekeeping may drop the row without weakening the check.
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
