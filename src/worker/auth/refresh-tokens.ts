import { and, eq, isNull, ne, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { refreshTokens } from "../db/schema";
import { toBase64Url } from "./password";
import { randomToken } from "./random";

/**
 * Refresh tokens: 32 random bytes (base64url) handed to the client once, stored only as their
 * SHA-256, so a copy of the table cannot be replayed. Each use rotates the token: the old row is
 * marked revoked and `replaced_by` its successor, all in one family (one sign-in). Presenting a
 * token that was already rotated means two parties hold it — the family is revoked at once.
 *
 * A token lasts 30 days unused; a session (the family) ends 90 days after its sign-in however often
 * it is refreshed, so a stolen token cannot be kept alive forever by refreshing it.
 */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600_000;
export const SESSION_MAX_AGE_MS = 90 * 24 * 3600_000;

// Families whose sign-in passed a TOTP check carry this prefix, so refreshing an administrator's
// session can insist on it (an admin never gets tokens without TOTP, even via an old family).
const TOTP_FAMILY_PREFIX = "totp.";

export async function hashRefreshToken(token: string): Promise<string> {
  return toBase64Url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)));
}

export function familyPassedTotp(family: string): boolean {
  return family.startsWith(TOTP_FAMILY_PREFIX);
}

/** Starts a new family (a sign-in): its first token, and the family id the ID tokens carry as `sid`. */
export async function startRefreshFamily(
  db: Db,
  userId: number,
  options: { passedTotp: boolean },
  now = Date.now(),
): Promise<{ token: string; family: string }> {
  const token = randomToken();
  const family = `${options.passedTotp ? TOTP_FAMILY_PREFIX : ""}${randomToken(16)}`;
  const sessionExpiresAt = now + SESSION_MAX_AGE_MS;
  await db.insert(refreshTokens).values({
    tokenHash: await hashRefreshToken(token),
    family,
    userId,
    expiresAt: Math.min(now + REFRESH_TOKEN_TTL_MS, sessionExpiresAt),
    createdAt: now,
    sessionExpiresAt,
  });
  return { token, family };
}

export type RotateResult = { ok: true; userId: number; family: string; token: string } | { ok: false; reason: "unknown" | "expired" | "revoked" | "reused" };

/**
 * Exchanges a token for its successor. The old row is claimed (revoked, pointing at the new hash)
 * and the successor inserted from it in one transaction; the insert copies the row only if the
 * claim was ours, so two concurrent uses cannot both succeed — the loser is treated as reuse.
 */
export async function rotateRefreshToken(db: Db, token: string, now = Date.now()): Promise<RotateResult> {
  const oldHash = await hashRefreshToken(token);
  const row = await db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, oldHash)).get();
  if (!row) return { ok: false, reason: "unknown" };
  if (row.replacedBy !== null) {
    await revokeFamily(db, row.family, now);
    return { ok: false, reason: "reused" };
  }
  if (row.revokedAt !== null) return { ok: false, reason: "revoked" };
  // Rows from before sessions had an end get one now.
  const sessionExpiresAt = row.sessionExpiresAt ?? now + SESSION_MAX_AGE_MS;
  if (row.expiresAt <= now || sessionExpiresAt <= now) return { ok: false, reason: "expired" };

  const next = randomToken();
  const nextHash = await hashRefreshToken(next);
  const expiresAt = Math.min(now + REFRESH_TOKEN_TTL_MS, sessionExpiresAt);
  const [claimed] = await db.batch([
    db
      .update(refreshTokens)
      .set({ revokedAt: now, replacedBy: nextHash })
      .where(and(eq(refreshTokens.tokenHash, oldHash), isNull(refreshTokens.revokedAt)))
      .returning({ userId: refreshTokens.userId }),
    db.insert(refreshTokens).select(
      db
        .select({
          tokenHash: sql<string>`${nextHash}`.as("token_hash"),
          family: refreshTokens.family,
          userId: refreshTokens.userId,
          expiresAt: sql<number>`${expiresAt}`.as("expires_at"),
          createdAt: sql<number>`${now}`.as("created_at"),
          revokedAt: sql<null>`NULL`.as("revoked_at"),
          replacedBy: sql<null>`NULL`.as("replaced_by"),
          sessionExpiresAt: sql<number>`${sessionExpiresAt}`.as("session_expires_at"),
        })
        .from(refreshTokens)
        .where(and(eq(refreshTokens.tokenHash, oldHash), eq(refreshTokens.replacedBy, nextHash))),
    ),
  ]);
  if (claimed.length === 0) {
    await revokeFamily(db, row.family, now);
    return { ok: false, reason: "reused" };
  }
  return { ok: true, userId: row.userId, family: row.family, token: next };
}

export async function revokeFamily(db: Db, family: string, now = Date.now()): Promise<void> {
  await db
    .update(refreshTokens)
    .set({ revokedAt: now })
    .where(and(eq(refreshTokens.family, family), isNull(refreshTokens.revokedAt)));
}

/** Signs a token's session out (its whole family). Unknown tokens are ignored: signing out is idempotent. */
export async function revokeRefreshToken(db: Db, token: string, now = Date.now()): Promise<{ userId: number; family: string } | null> {
  const row = await db
    .select({ family: refreshTokens.family, userId: refreshTokens.userId })
    .from(refreshTokens)
    .where(eq(refreshTokens.tokenHash, await hashRefreshToken(token)))
    .get();
  if (!row) return null;
  await revokeFamily(db, row.family, now);
  return { userId: row.userId, family: row.family };
}

/** Global sign-out, and what a credential change does: every session of the user ends (but `except`, the caller's own). */
export async function revokeAllRefreshTokens(db: Db, userId: number, now = Date.now(), except?: string): Promise<void> {
  await db
    .update(refreshTokens)
    .set({ revokedAt: now })
    .where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt), except === undefined ? undefined : ne(refreshTokens.family, except)));
}
