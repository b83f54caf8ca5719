import { and, eq, gt, lt, ne, sql } from "drizzle-orm";
import type { ChallengeName } from "../../shared/auth";
import { recordAudit } from "../cross-cutting/audit";
import type { Db } from "../db/client";
import { authChallenges, users } from "../db/schema";
import { deliverCode, type IdentityDeps, type SessionsEnded } from "./code-delivery";
import { randomToken } from "./random";
import { familyPassedTotp, revokeAllRefreshTokens, startRefreshFamily } from "./refresh-tokens";
import { sealSecret } from "./secret-box";
import { ID_TOKEN_TTL_SECONDS, signIdToken } from "./tokens";
import { generateTotpSecret, otpauthUri } from "./totp";

/**
 * Sign-in as a sequence of steps. After the first factor (a password, or an SMS code for
 * CUSTOM_CHALLENGE) the user's state decides what is still owed — an enrolled second factor, a new
 * password, TOTP enrolment for an administrator — and each step is an auth_challenges row whose
 * random id is the `session` the client sends back. Tokens are issued only when nothing is owed.
 */
export const CHALLENGE_TTL_MS = 5 * 60_000;
export const CHALLENGE_MAX_ATTEMPTS = 5;

export type User = typeof users.$inferSelect;
export type SignInMethod = "password" | "sms";

/** What a challenge row carries from step to step. */
export type ChallengeData = {
  method: SignInMethod;
  passed: ChallengeName[];
  /** MFA_SETUP: the proposed TOTP secret, sealed like the stored one. */
  sealedSecret?: string;
  /** The stand-in of an SMS sign-in for a phone without an account: which account it pretends to be. */
  app?: "flex" | "spark";
  phone?: string;
};

export type Tokens = { idToken: string; refreshToken: string; expiresIn: number };
export type SignInStep = { tokens: Tokens } | { challenge: ChallengeName; session: string; parameters?: { secret: string; otpauthUri: string } };

export function hasTotp(user: Pick<User, "mfaMethod" | "mfaSecret">): boolean {
  return user.mfaMethod === "totp" && !!user.mfaSecret;
}

/**
 * What the user still owes, in order: the enrolled second factor first (so a password change or
 * enrolment is never done on the strength of the first factor alone), then a new password, then
 * TOTP enrolment for administrators. An SMS sign-in already proved the phone, so it counts as SMS_MFA.
 */
export function nextChallenge(user: User, passed: ReadonlySet<ChallengeName>): ChallengeName | null {
  if (hasTotp(user) && !passed.has("SOFTWARE_TOKEN_MFA") && !passed.has("MFA_SETUP")) return "SOFTWARE_TOKEN_MFA";
  if (user.mfaMethod === "sms" && !passed.has("SMS_MFA") && !passed.has("CUSTOM_CHALLENGE")) return "SMS_MFA";
  if (user.mustChangePassword && !passed.has("NEW_PASSWORD_REQUIRED")) return "NEW_PASSWORD_REQUIRED";
  if (user.isAdmin && !hasTotp(user)) return "MFA_SETUP";
  return null;
}

/** An ID token for a user's session: `sid` names the refresh family, so signing that session out ends the token too. */
export function idTokenFor(env: Env, user: User, family: string, now: number): Promise<string> {
  return signIdToken(
    env,
    { sub: String(user.id), sid: family, phone_number: user.phone, phone_number_verified: user.phoneVerified, app: user.app, is_admin: user.isAdmin },
    now,
  );
}

export async function createChallenge(db: Db, userId: number | null, challenge: ChallengeName, data: ChallengeData, now: number): Promise<string> {
  const session = randomToken();
  await db.insert(authChallenges).values({ id: session, userId, challenge, expiresAt: now + CHALLENGE_TTL_MS, attempts: 0, data });
  return session;
}

/** A live challenge row (not expired, attempts left), or undefined. */
export async function findLiveChallenge(db: Db, session: string, now: number) {
  return db
    .select()
    .from(authChallenges)
    .where(and(eq(authChallenges.id, session), gt(authChallenges.expiresAt, now), lt(authChallenges.attempts, CHALLENGE_MAX_ATTEMPTS)))
    .get();
}

/**
 * Claims one attempt on a challenge before its answer is checked; conditional, so concurrent
 * answers cannot exceed the limit. Returns the attempts used including this one, or null if none are left.
 */
export async function claimChallengeAttempt(db: Db, session: string, now: number): Promise<number | null> {
  const row = await db
    .update(authChallenges)
    .set({ attempts: sql`${authChallenges.attempts} + 1` })
    .where(and(eq(authChallenges.id, session), gt(authChallenges.expiresAt, now), lt(authChallenges.attempts, CHALLENGE_MAX_ATTEMPTS)))
    .returning({ attempts: authChallenges.attempts })
    .get();
  return row?.attempts ?? null;
}

/** Deletes a challenge once answered; false if another request already did (the answer is then void). */
export async function consumeChallenge(db: Db, session: string): Promise<boolean> {
  const row = await db.delete(authChallenges).where(eq(authChallenges.id, session)).returning({ id: authChallenges.id }).get();
  return row !== undefined;
}

/**
 * What a credential change or a proof of the phone does: every session and pending sign-in of the
 * user made before it ends (but `except`, the caller's own session, on a change the caller made).
 */
export async function endSessionsAndChallenges(
  db: Db,
  userId: number,
  now: number,
  except: { family?: string; challenge?: string } = {},
  ended?: SessionsEnded,
): Promise<void> {
  await revokeAllRefreshTokens(db, userId, now, except.family);
  await ended?.(userId, null, except.family);
  await db
    .delete(authChallenges)
    .where(and(eq(authChallenges.userId, userId), except.challenge === undefined ? undefined : ne(authChallenges.id, except.challenge)));
}

async function issueTokens(deps: IdentityDeps, user: User, progress: Omit<ChallengeData, "sealedSecret">): Promise<Tokens> {
  const passedTotp = progress.passed.includes("SOFTWARE_TOKEN_MFA") || progress.passed.includes("MFA_SETUP");
  const { token: refreshToken, family } = await startRefreshFamily(deps.db, user.id, { passedTotp }, deps.now);
  const idToken = await idTokenFor(deps.env, user, family, deps.now);
  await deps.db.update(users).set({ lastSignInAt: deps.now }).where(eq(users.id, user.id));
  await recordAudit(
    deps.db,
    {
      actorId: user.id,
      action: "auth.sign_in",
      target: `user:${user.id}`,
      details: { method: progress.method, challenges: progress.passed, address: deps.address },
    },
    deps.now,
  );
  return { idToken, refreshToken, expiresIn: ID_TOKEN_TTL_SECONDS };
}

/** The next step of a sign-in for a user who has passed `progress` so far: a challenge, or tokens. */
export async function advanceSignIn(deps: IdentityDeps, user: User, progress: Omit<ChallengeData, "sealedSecret">): Promise<SignInStep> {
  const challenge = nextChallenge(user, new Set(progress.passed));
  if (challenge === null) {
    // Defence in depth: nextChallenge already guarantees this; a future edit must not weaken it.
    if (user.isAdmin && !progress.passed.includes("SOFTWARE_TOKEN_MFA") && !progress.passed.includes("MFA_SETUP")) {
      throw new Error("Refusing to issue administrator tokens without TOTP");
    }
    return { tokens: await issueTokens(deps, user, progress) };
  }
  const data: ChallengeData = { method: progress.method, passed: progress.passed };
  if (challenge === "SMS_MFA") {
    await deliverCode(deps, { app: user.app, phone: user.phone, purpose: "mfa", language: user.language, send: true, mayUseReserve: user.phoneVerified });
  }
  if (challenge === "MFA_SETUP") {
    const secret = generateTotpSecret();
    data.sealedSecret = await sealSecret(secret, deps.env.MFA_ENCRYPTION_KEY);
    const session = await createChallenge(deps.db, user.id, challenge, data, deps.now);
    return { challenge, session, parameters: { secret, otpauthUri: otpauthUri(secret, user.phone) } };
  }
  return { challenge, session: await createChallenge(deps.db, user.id, challenge, data, deps.now) };
}

/** Can this refresh-token family still mint tokens for this user? Administrators need a TOTP-backed family. */
export function familyAllowedFor(user: User, family: string): boolean {
  return !user.isAdmin || (hasTotp(user) && familyPassedTotp(family));
}
