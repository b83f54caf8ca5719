import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { SessionUser } from "../context";
import type { Db } from "../db/client";
import { refreshTokens, users } from "../db/schema";
import { ApiError } from "../errors";
import { verifyIdToken } from "./tokens";

/**
 * The caller of a signed-in request (`authorization`, its Bearer ID token): a valid ID token, the
 * user it names still exists with a confirmed phone, and the session it was issued for (its `sid`,
 * a refresh-token family) still has a live token. Both are read fresh, in one statement (the
 * session an EXISTS beside the user row: a batch of two would cost a transaction on every signed-in
 * request, which bench:load shows), so a demoted admin, a deleted account, a sign-out (this session or all
 * of them), a credential change or a detected refresh-token theft end access at once, not when the
 * token expires. Refused with 401 (403 for an unconfirmed account).
 */
export async function signedInCaller(
  db: Db,
  env: Env,
  authorization: string | undefined,
  now = Date.now(),
): Promise<{ user: SessionUser; sessionId: string; tokenExpiresAt: number }> {
  const header = authorization ?? "";
  const token = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
  if (!token) throw new ApiError("unauthorized", "Sign in to continue");
  const result = await verifyIdToken(env, token);
  if (!result.ok) throw new ApiError("unauthorized", result.reason === "expired" ? "Session expired" : "Invalid token");
  const id = Number(result.claims.sub);
  if (!Number.isInteger(id)) throw new ApiError("unauthorized", "Invalid token");
  const liveSession = db
    .select({ live: sql`1` })
    .from(refreshTokens)
    .where(and(eq(refreshTokens.family, result.claims.sid), eq(refreshTokens.userId, id), isNull(refreshTokens.revokedAt), gt(refreshTokens.expiresAt, now)));
  const found = await db
    .select({ user: users, live: sql<number>`exists ${liveSession}` })
    .from(users)
    .where(eq(users.id, id))
    .get();
  if (!found) throw new ApiError("unauthorized", "Invalid token");
  const { user, live } = found;
  if (!live) throw new ApiError("unauthorized", "Session ended. Sign in again");
  // An unconfirmed account gets nothing but the confirm flow (a session from before that rule included).
  if (!user.phoneVerified) throw new ApiError("forbidden", "Confirm account to continue", { details: { reason: "unconfirmed" } });
  return { user, sessionId: result.claims.sid, tokenExpiresAt: (result.claims.exp ?? 0) * 1000 };
}
