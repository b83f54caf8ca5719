import { and, eq } from "drizzle-orm";
import { recordAudit } from "../cross-cutting/audit";
import { pushSubscriptions } from "../db/schema";
import { ApiError } from "../errors";
import { findUserById } from "./accounts";
import type { IdentityDeps } from "./code-delivery";
import { revokeAllRefreshTokens, revokeFamily, revokeRefreshToken, rotateRefreshToken } from "./refresh-tokens";
import type { SignOutRequest } from "./requests";
import { signedInCaller } from "./session-user";
import { familyAllowedFor, idTokenFor, type Tokens } from "./sign-in-flow";
import { ID_TOKEN_TTL_SECONDS } from "./tokens";

/**
 * New tokens for a refresh token, which is rotated: a rotated token that comes back revokes its
 * whole session. A user no longer confirmed, or an administrator whose session did not pass
 * TOTP, gets nothing and the session ends.
 */
export async function refreshSession(deps: IdentityDeps, refreshToken: string): Promise<{ tokens: Tokens }> {
  const { db, now } = deps;
  const result = await rotateRefreshToken(db, refreshToken, now);
  if (!result.ok) {
    if (result.reason === "reused") deps.log.warn("auth.refresh_reuse", { address: deps.address });
    throw new ApiError("unauthorized", result.reason === "reused" ? "Session revoked. Sign in again" : "Session expired. Sign in again", {
      details: { reason: result.reason },
    });
  }
  const user = await findUserById(db, result.userId);
  if (!user?.phoneVerified || !familyAllowedFor(user, result.family)) {
    await revokeFamily(db, result.family, now);
    throw new ApiError("unauthorized", "Sign in again", { details: { reason: "revoked" } });
  }
  return { tokens: { idToken: await idTokenFor(deps.env, user, result.family, now), refreshToken: result.token, expiresIn: ID_TOKEN_TTL_SECONDS } };
}

/**
 * Ends the session of one refresh token, or with `global` every session of the user: that ends
 * everything they hold, so the caller must be signed in as every signed-in route checks it
 * (`authorization`, a Bearer ID token of a session still live), not just hold one token: an ID token
 * of an ended session (one leaked, or from before a sign-out) cannot end the others again.
 * `deps.sessionsEnded` hears which sessions ended, once they have.
 */
export async function signOut(deps: IdentityDeps, body: SignOutRequest, authorization: string | undefined): Promise<{ signedOut: true }> {
  const { db } = deps;
  let userId: number | null;
  if (body.global) {
    userId = (await signedInCaller(db, deps.env, authorization, deps.now)).user.id;
    await revokeAllRefreshTokens(db, userId);
    await recordAudit(db, { actorId: userId, action: "auth.sign_out_global", target: `user:${userId}` });
    await deps.sessionsEnded?.(userId, null);
  } else {
    const session = await revokeRefreshToken(db, body.refreshToken);
    userId = session?.userId ?? null;
    if (session) await deps.sessionsEnded?.(session.userId, session.family);
  }
  // The device signing out gets no more pushes for this account (only this account's subscription of it).
  if (userId !== null && body.pushEndpoint !== undefined) {
    await db.delete(pushSubscriptions).where(and(eq(pushSubscriptions.userId, userId), eq(pushSubscriptions.endpoint, body.pushEndpoint)));
  }
  return { signedOut: true };
}
