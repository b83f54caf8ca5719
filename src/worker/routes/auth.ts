import { and, eq } from "drizzle-orm";
import { type Context, Hono } from "hono";
import { z } from "zod";
import { appSchema, CHALLENGE_NAMES, type ChallengeName, codeSchema, emailSchema, languageSchema, passwordSchema, phoneSchema } from "../../shared/auth";
import { REGISTRATION_CONSENT } from "../../shared/consent-texts";
import { restoreErasedOptOuts } from "../account/phone-hash";
import { recordAudit } from "../auth/audit";
import { deliverCode, enforceCodeSendLimits, type IdentityDeps, issueAndSendCode } from "../auth/code-delivery";
import { CodeRefusal, codeError, consumeCode, isWrongGuess } from "../auth/codes";
import { insertUser } from "../auth/insert-user";
import { requireUser } from "../auth/middleware";
import { ABSENT_ACCOUNT_HASH, hashPassword, needsRehash, verifyPassword } from "../auth/password";
import { applyPendingSignup, dropPendingSignup, holdSignupStatement } from "../auth/pending-signup";
import { assertNoSmsCodeHold, assertUnderLimits, clientAddress, countHits, countSmsCodeFailure, enforceRateLimits, limitFor } from "../auth/rate-limit";
import { revokeAllRefreshTokens, revokeFamily, revokeRefreshToken, rotateRefreshToken } from "../auth/refresh-tokens";
import { openSecret } from "../auth/secret-box";
import {
  advanceSignIn,
  CHALLENGE_MAX_ATTEMPTS,
  type ChallengeData,
  claimChallengeAttempt,
  consumeChallenge,
  createChallenge,
  endSessionsAndChallenges,
  familyAllowedFor,
  findLiveChallenge,
  idTokenFor,
  type User,
} from "../auth/sign-in-flow";
import { ID_TOKEN_TTL_SECONDS, verifyIdToken } from "../auth/tokens";
import { claimTotpStep, verifyTotp } from "../auth/totp";
import { toUserItem } from "../auth/user-item";
import { resolveSignUpCode } from "../billing/invitations";
import { consentStatement } from "../compliance/consent";
import type { AppEnv } from "../context";
import type { Db } from "../db/client";
import { users } from "../db/schema";
import { ApiError } from "../errors";
import { validate } from "../validate";

const WRONG_CREDENTIALS = "Phone number or password incorrect";

const nameSchema = z.string().trim().min(1, "Enter your name").max(100);
/** Optional email as forms send it: absent, empty (no email) or a valid address. */
const optionalEmailSchema = z.union([z.literal("").transform(() => null), z.null(), emailSchema]).optional();
const sessionSchema = z.string().min(16).max(128);
const refreshTokenSchema = z.string().min(16).max(128);

const phoneAndApp = { phoneNumber: phoneSchema, app: appSchema };
/** Confirm: the code, and (optionally) the password chosen at registration, which keeps it. */
const confirmSchema = z.object({ ...phoneAndApp, code: codeSchema, password: z.string().min(1).max(256).optional() });

const registerSchema = z.object({
  ...phoneAndApp,
  password: passwordSchema,
  name: nameSchema,
  email: optionalEmailSchema,
  referralCode: z.string().trim().max(64).optional(),
  language: languageSchema.default("en"),
  /** The optional marketing consent box: ticked, with the version of the wording it showed (src/shared/consent-texts.ts). */
  marketingConsent: z.object({ version: z.literal(REGISTRATION_CONSENT.version) }).optional(),
});

const signInSchema = z.union([
  z.object({ ...phoneAndApp, password: z.string().min(1, "Enter your password").max(256) }).strict(),
  z.object({ ...phoneAndApp, method: z.literal("sms") }).strict(),
]);

const respondSchema = z.object({
  challenge: z.enum(CHALLENGE_NAMES),
  session: sessionSchema,
  code: codeSchema.optional(),
  newPassword: passwordSchema.optional(),
});

const meSchema = z
  .object({ name: nameSchema.optional(), email: optionalEmailSchema, language: languageSchema.optional() })
  .refine((body) => Object.values(body).some((value) => value !== undefined), "Send at least one of name, email, language");

/** What the identity flows (and other texts sent on someone's request) need from the request. */
export function identityDeps(c: Context<AppEnv>): IdentityDeps {
  return {
    db: c.var.db,
    env: c.env,
    config: c.var.config,
    log: c.var.log,
    address: clientAddress(c.req.header("CF-Connecting-IP")),
    waitUntil: (promise) => c.executionCtx.waitUntil(promise),
    now: Date.now(),
  };
}

function findUser(db: Db, app: "flex" | "spark", phone: string): Promise<User | undefined> {
  return db.query.users.findFirst({ where: and(eq(users.app, app), eq(users.phone, phone)) });
}

async function findUserById(db: Db, id: number): Promise<User | undefined> {
  return db.query.users.findFirst({ where: eq(users.id, id) });
}

const sessionExpired = (reason: "expired" | "exhausted" = "expired") =>
  new ApiError("unauthorized", reason === "exhausted" ? "Too many wrong tries. Sign in again" : "Session expired. Sign in again", { details: { reason } });

/** Codes answered inside a challenge share its attempt budget; the code's own budget applies too. */
function challengeCodeError(attemptsUsed: number, reason: "mismatch" | "used"): ApiError {
  const attemptsLeft = CHALLENGE_MAX_ATTEMPTS - attemptsUsed;
  if (attemptsLeft <= 0) return sessionExpired("exhausted");
  return reason === "used"
    ? new ApiError("bad_request", "This code was already used. Wait for the next one", { details: { reason, attemptsLeft } })
    : codeError("mismatch", attemptsLeft);
}

type Account = { app: string; phone: string };
const accountKey = (account: Account) => `${account.app}:${account.phone}`;

/**
 * Runs one SMS code check (confirm, reset, sign-in, SMS second factor). Anyone can have such a
 * code texted to any phone, so a wrong one holds back only the client that sent it, for this
 * account, with growing waits (SMS_CODE_BACKOFF); the owner on another client is not held. The
 * caller refuses a held client first (`assertNoSmsCodeHold`), before anything is counted.
 */
export async function checkingSmsCode<T>(deps: IdentityDeps, account: Account, check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (err) {
    if (isWrongGuess(err)) {
      const holdMs = await countSmsCodeFailure(deps.db, accountKey(account), deps.address, deps.now);
      deps.log.warn("auth.wrong_code", { factor: "sms", account: accountKey(account), address: deps.address, holdMs });
    }
    throw err;
  }
}

/**
 * Runs one authenticator (TOTP) check under the account's daily lockout: refused outright (429)
 * once the account has had its wrong codes for the day, and a wrong code counts towards it. Only
 * someone past the first factor gets here, so only they can spend it.
 */
async function checkingAuthenticatorCode<T>(deps: IdentityDeps, account: Account, check: () => Promise<T>): Promise<T> {
  const lockout = limitFor("authenticatorFailuresPerAccount", accountKey(account));
  await assertUnderLimits(deps.db, [lockout], deps.now);
  try {
    return await check();
  } catch (err) {
    if (isWrongGuess(err)) {
      await countHits(deps.db, [lockout], deps.now);
      deps.log.warn("auth.wrong_code", { factor: "authenticator", account: lockout.key });
    }
    throw err;
  }
}

/**
 * The limits of one SMS code answer (confirm, reset): a client still held back for this account
 * is refused before anything counts; then the answer counts per account and client, and per client.
 */
export async function enforceSmsCodeCheckLimits(deps: IdentityDeps, account: Account): Promise<void> {
  await assertNoSmsCodeHold(deps.db, accountKey(account), deps.address, deps.now);
  await enforceRateLimits(
    deps.db,
    [limitFor("codeCheckPerAccountClient", `${accountKey(account)}:${deps.address}`), limitFor("codeCheckPerAddress", deps.address)],
    deps.now,
  );
}

/** Identity: /api/auth/* (docs/api.md). */
export const authRoutes = new Hono<AppEnv>()
  .post("/register", validate("json", registerSchema), async (c) => {
    const body = c.req.valid("json");
    const deps = identityDeps(c);
    const { db } = deps;
    await enforceRateLimits(db, [limitFor("registerPerAddress", deps.address)], deps.now);
    if (await findUser(db, body.app, body.phoneNumber)) throw new ApiError("conflict", "An account with this phone number already exists");

    // A reseller's referral code (the driver becomes their client) or a driver's invite code from an invite link.
    let signUpCode: Awaited<ReturnType<typeof resolveSignUpCode>> = null;
    if (body.referralCode) {
      signUpCode = await resolveSignUpCode(db, body.app, body.referralCode);
      if (!signUpCode) throw new ApiError("unprocessable", "Referral code not found. Check it or leave it empty", { details: { field: "referralCode" } });
    }
    const referralCode = signUpCode && "referralCode" in signUpCode ? signUpCode.referralCode : null;
    const invitedBy = signUpCode && "invitedBy" in signUpCode ? signUpCode.invitedBy : null;

    // Checked before the account exists, so a throttled send never leaves an account without a code.
    await enforceCodeSendLimits(deps, body.phoneNumber, "confirm", { send: true, mayUseReserve: false });
    const passwordHash = await hashPassword(body.password, c.env.PASSWORD_PEPPER);
    const account = await insertUser(db, {
      app: body.app,
      phone: body.phoneNumber,
      name: body.name,
      email: body.email ?? null,
      passwordHash,
      language: body.language,
      createdAt: deps.now,
    });
    // A number whose erased account had opted out is opted out again (src/worker/account/phone-hash.ts).
    await restoreErasedOptOuts(db, c.env.PASSWORD_PEPPER, [account.phone]);
    // Nothing typed here is proven: the referral code and inviter wait for the registrant to confirm
    // with this password, and the marketing tick allows nothing until then (src/worker/auth/pending-signup.ts).
    const hold = holdSignupStatement(db, account.id, { referralCode, invitedBy }, deps.now);
    if (body.marketingConsent) {
      const tick = consentStatement(db, {
        phone: body.phoneNumber,
        basis: "unconfirmed",
        source: "registration",
        text: REGISTRATION_CONSENT,
        language: body.language,
        userId: account.id,
        at: deps.now,
      });
      await db.batch([hold, tick]);
    } else {
      await hold;
    }
    const codeDelivery = await issueAndSendCode(deps, { app: body.app, phone: body.phoneNumber, purpose: "confirm", language: body.language, send: true });
    return c.json({ codeDelivery }, 201);
  })

  /**
   * The code proves the phone, for whoever holds it, who may not be whoever registered: every
   * session and sign-in made before ends, and what was typed at registration (the password, the
   * referral code or inviter, the name, the email, the marketing tick) takes effect only if the
   * request carries the registration password too (the registrant confirming). Otherwise all of it
   * is dropped and the answer is a NEW_PASSWORD_REQUIRED challenge, so the phone's owner sets their
   * own password. Either way the answer continues as a sign-in (`tokens` or the next challenge).
   */
  .post("/confirm", validate("json", confirmSchema), async (c) => {
    const body = c.req.valid("json");
    const deps = identityDeps(c);
    const { db } = deps;
    const account = { app: body.app, phone: body.phoneNumber };
    await enforceSmsCodeCheckLimits(deps, account);
    await checkingSmsCode(deps, account, () => consumeCode(db, c.env.PASSWORD_PEPPER, { ...account, purpose: "confirm" }, body.code, deps.now));
    const user = await findUser(db, body.app, body.phoneNumber);
    if (!user) throw codeError("missing");
    if (user.phoneVerified) throw new ApiError("conflict", "This account is already confirmed");
    const registrant = body.password !== undefined && !!user.passwordHash && (await verifyPassword(body.password, user.passwordHash, c.env.PASSWORD_PEPPER));
    let confirmed: User = registrant ? { ...user, phoneVerified: true } : { ...user, phoneVerified: true, passwordHash: null, mustChangePassword: true };
    await db
      .update(users)
      .set({ phoneVerified: true, passwordHash: confirmed.passwordHash, mustChangePassword: confirmed.mustChangePassword })
      .where(eq(users.id, user.id));
    confirmed = registrant ? await applyPendingSignup(db, confirmed, deps.now) : await dropPendingSignup(db, confirmed, deps.now, "confirm");
    await endSessionsAndChallenges(db, user.id, deps.now);
    await recordAudit(db, { actorId: user.id, action: "auth.phone_confirmed", target: `user:${user.id}`, details: { passwordKept: registrant } }, deps.now);
    const step = await advanceSignIn(deps, confirmed, { method: registrant ? "password" : "sms", passed: [] });
    return c.json({ confirmed: true as const, ...step });
  })

  .post("/resend-code", validate("json", z.object(phoneAndApp)), async (c) => {
    const body = c.req.valid("json");
    const deps = identityDeps(c);
    const user = await findUser(deps.db, body.app, body.phoneNumber);
    // Unknown and already-confirmed phones get the same answer and the same work, minus the SMS.
    const codeDelivery = await deliverCode(deps, {
      app: body.app,
      phone: body.phoneNumber,
      purpose: "confirm",
      language: user?.language ?? "en",
      send: !!user && !user.phoneVerified,
      mayUseReserve: false,
    });
    return c.json({ codeDelivery });
  })

  .post("/sign-in", validate("json", signInSchema), async (c) => {
    const body = c.req.valid("json");
    const deps = identityDeps(c);
    const account = { app: body.app, phone: body.phoneNumber };
    // Each factor is limited apart: SMS sign-in by the code texts' own limits (per number and
    // client), passwords per account and client plus a high per-account ceiling, so wrong
    // passwords from others never stop the owner's SMS sign-in or reset.
    const limits =
      "method" in body
        ? [limitFor("signInPerAddress", deps.address)]
        : [
            limitFor("passwordPerAccountClient", `${accountKey(account)}:${deps.address}`),
            limitFor("passwordPerAccount", accountKey(account)),
            limitFor("signInPerAddress", deps.address),
          ];
    await enforceRateLimits(deps.db, limits, deps.now);
    const user = await findUser(deps.db, body.app, body.phoneNumber);

    if ("method" in body) {
      // An unknown phone may use the reserve as a confirmed account would, so the answers stay the same.
      await deliverCode(deps, {
        app: body.app,
        phone: body.phoneNumber,
        purpose: "sign-in",
        language: user?.language ?? "en",
        send: !!user,
        mayUseReserve: !user || user.phoneVerified,
      });
      // An unknown phone gets a challenge of its own that no code passes, stored and counted like a
      // real one: the answers, the attempts left and the work done are the same either way.
      const data: ChallengeData = user ? { method: "sms", passed: [] } : { method: "sms", passed: [], app: body.app, phone: body.phoneNumber };
      const session = await createChallenge(deps.db, user?.id ?? null, "CUSTOM_CHALLENGE", data, deps.now);
      return c.json({ challenge: "CUSTOM_CHALLENGE" as const, session });
    }

    const passwordOk = await verifyPassword(body.password, user?.passwordHash ?? ABSENT_ACCOUNT_HASH, c.env.PASSWORD_PEPPER);
    if (!user?.passwordHash || !passwordOk) throw new ApiError("unauthorized", WRONG_CREDENTIALS);
    // Unconfirmed accounts get the confirm flow only. A temporary password (an account an admin
    // made) came by SMS to this phone, so knowing it proves the phone: that sign-in may go on.
    if (!user.phoneVerified && !user.mustChangePassword) {
      throw new ApiError("forbidden", "Confirm account to continue", { details: { reason: "unconfirmed" } });
    }
    if (needsRehash(user.passwordHash)) {
      await deps.db
        .update(users)
        .set({ passwordHash: await hashPassword(body.password, c.env.PASSWORD_PEPPER) })
        .where(eq(users.id, user.id));
    }
    return c.json(await advanceSignIn(deps, user, { method: "password", passed: [] }));
  })

  .post("/respond", validate("json", respondSchema), async (c) => {
    const body = c.req.valid("json");
    const deps = identityDeps(c);
    const { db } = deps;
    await enforceRateLimits(db, [limitFor("codeCheckPerAddress", deps.address)], deps.now);
    const row = await findLiveChallenge(db, body.session, deps.now);
    if (!row) throw sessionExpired();
    const challenge = row.challenge as ChallengeName;
    if (challenge !== body.challenge) {
      throw new ApiError("bad_request", `This sign-in expects ${challenge}`, { details: { reason: "wrong_challenge", expected: challenge } });
    }
    if (challenge === "NEW_PASSWORD_REQUIRED" ? !body.newPassword : !body.code) {
      const field = challenge === "NEW_PASSWORD_REQUIRED" ? "newPassword" : "code";
      throw new ApiError("validation_failed", `${field}: Required`, { details: [{ path: field, message: "Required" }] });
    }
    const data = (row.data ?? { method: "password", passed: [] }) as ChallengeData;
    // The stand-in of an SMS sign-in for an unknown phone goes through the same steps as a real one.
    const standIn = row.userId === null;
    let user = standIn ? undefined : await findUserById(db, row.userId!);
    const account = user ? { app: user.app, phone: user.phone } : data.app && data.phone ? { app: data.app, phone: data.phone } : null;
    if (standIn && account) await findUser(db, account.app, account.phone);
    if (!account || (!standIn && !user)) throw sessionExpired();
    // A client held back from SMS codes for this account is refused before anything counts or an attempt is spent.
    if (challenge === "SMS_MFA" || challenge === "CUSTOM_CHALLENGE") await assertNoSmsCodeHold(db, accountKey(account), deps.address, deps.now);
    await enforceRateLimits(db, [limitFor("codeCheckPerAccountClient", `${accountKey(account)}:${deps.address}`)], deps.now);

    const attemptsUsed = await claimChallengeAttempt(db, body.session, deps.now);
    if (attemptsUsed === null) throw sessionExpired("exhausted");
    const code = body.code ?? "";
    let provedPhone = false;

    try {
      switch (challenge) {
        case "SMS_MFA":
        case "CUSTOM_CHALLENGE": {
          const purpose = challenge === "SMS_MFA" ? "mfa" : "sign-in";
          await checkingSmsCode(deps, account, async () => {
            await consumeCode(db, c.env.PASSWORD_PEPPER, { ...account, purpose }, code, deps.now);
            // Nobody was texted this code: a right guess is still a wrong answer.
            if (standIn) throw codeError("mismatch", CHALLENGE_MAX_ATTEMPTS - attemptsUsed);
          });
          user = user!;
          // A code received by SMS proves the phone, as confirming it would; for an account not yet
          // confirmed that means its password (set by whoever registered) is void.
          if (!user.phoneVerified) {
            provedPhone = true;
            user = { ...user, phoneVerified: true, passwordHash: null, mustChangePassword: true };
          }
          break;
        }
        case "SOFTWARE_TOKEN_MFA":
        case "MFA_SETUP": {
          user = user!;
          const sealed = challenge === "MFA_SETUP" ? data.sealedSecret : user.mfaSecret;
          if (!sealed) throw sessionExpired();
          const secret = await openSecret(sealed, c.env.MFA_ENCRYPTION_KEY);
          const step = await checkingAuthenticatorCode(deps, account, async () => {
            const matched = await verifyTotp(secret, code, deps.now);
            if (matched === null) throw codeError("mismatch", CHALLENGE_MAX_ATTEMPTS - attemptsUsed);
            return matched;
          });
          if (!(await claimTotpStep(db, user.id, step))) throw challengeCodeError(attemptsUsed, "used");
          if (challenge === "MFA_SETUP") {
            user = { ...user, mfaMethod: "totp", mfaSecret: sealed };
            await recordAudit(db, { actorId: user.id, action: "auth.mfa_enabled", target: `user:${user.id}`, details: { method: "totp" } }, deps.now);
          }
          break;
        }
        case "NEW_PASSWORD_REQUIRED": {
          user = user!;
          const newPassword = body.newPassword!;
          if (user.passwordHash && (await verifyPassword(newPassword, user.passwordHash, c.env.PASSWORD_PEPPER))) {
            throw new ApiError("bad_request", "Choose a password different from the temporary one", { details: { reason: "same_password" } });
          }
          // Reaching this step took the SMS code or the temporary password texted to the phone: it is proven.
          user = { ...user, passwordHash: await hashPassword(newPassword, c.env.PASSWORD_PEPPER), mustChangePassword: false, phoneVerified: true };
          await recordAudit(
            db,
            { actorId: user.id, action: "auth.password_changed", target: `user:${user.id}`, details: { via: "NEW_PASSWORD_REQUIRED" } },
            deps.now,
          );
          break;
        }
      }
    } catch (err) {
      // A wrong code that spent the challenge's last attempt: only starting again helps.
      if (err instanceof CodeRefusal && CHALLENGE_MAX_ATTEMPTS - attemptsUsed <= 0) throw sessionExpired("exhausted");
      throw err;
    }

    // Single use: of two concurrent right answers only the one that deletes the row goes on.
    if (!(await consumeChallenge(db, body.session))) throw sessionExpired();
    await db
      .update(users)
      .set({
        phoneVerified: user.phoneVerified,
        mfaMethod: user.mfaMethod,
        mfaSecret: user.mfaSecret,
        passwordHash: user.passwordHash,
        mustChangePassword: user.mustChangePassword,
      })
      .where(eq(users.id, user.id));
    // An SMS code proved the phone of an unconfirmed account without its registration password: what was typed at registration goes.
    if (provedPhone) user = await dropPendingSignup(db, user, deps.now, "sms_sign_in");
    // A proof of the phone and a new password each end whatever was signed in or pending before.
    if (provedPhone || challenge === "NEW_PASSWORD_REQUIRED") await endSessionsAndChallenges(db, user.id, deps.now);
    return c.json(await advanceSignIn(deps, user, { method: data.method, passed: [...data.passed, challenge] }));
  })

  .post("/refresh", validate("json", z.object({ refreshToken: refreshTokenSchema })), async (c) => {
    const { refreshToken } = c.req.valid("json");
    const now = Date.now();
    const db = c.var.db;
    const result = await rotateRefreshToken(db, refreshToken, now);
    if (!result.ok) {
      if (result.reason === "reused") c.var.log.warn("auth.refresh_reuse", { address: clientAddress(c.req.header("CF-Connecting-IP")) });
      throw new ApiError("unauthorized", result.reason === "reused" ? "Session revoked. Sign in again" : "Session expired. Sign in again", {
        details: { reason: result.reason },
      });
    }
    const user = await findUserById(db, result.userId);
    if (!user?.phoneVerified || !familyAllowedFor(user, result.family)) {
      await revokeFamily(db, result.family, now);
      throw new ApiError("unauthorized", "Sign in again", { details: { reason: "revoked" } });
    }
    return c.json({ tokens: { idToken: await idTokenFor(c.env, user, result.family, now), refreshToken: result.token, expiresIn: ID_TOKEN_TTL_SECONDS } });
  })

  .post("/sign-out", validate("json", z.object({ refreshToken: refreshTokenSchema, global: z.boolean().optional() })), async (c) => {
    const body = c.req.valid("json");
    const db = c.var.db;
    if (body.global) {
      // Everything the user holds ends, so the caller must prove who they are, not just hold one token.
      const header = c.req.header("Authorization") ?? "";
      const verified = header.startsWith("Bearer ") ? await verifyIdToken(c.env, header.slice(7).trim()) : null;
      const userId = verified?.ok ? Number(verified.claims.sub) : NaN;
      if (!Number.isInteger(userId)) throw new ApiError("unauthorized", "Sign in to sign out everywhere");
      await revokeAllRefreshTokens(db, userId);
      await recordAudit(db, { actorId: userId, action: "auth.sign_out_global", target: `user:${userId}` });
    } else {
      await revokeRefreshToken(db, body.refreshToken);
    }
    return c.json({ signedOut: true as const });
  })

  .post("/forgot-password", validate("json", z.object(phoneAndApp)), async (c) => {
    const body = c.req.valid("json");
    const deps = identityDeps(c);
    const user = await findUser(deps.db, body.app, body.phoneNumber);
    const codeDelivery = await deliverCode(deps, {
      app: body.app,
      phone: body.phoneNumber,
      purpose: "reset",
      language: user?.language ?? "en",
      send: !!user,
      mayUseReserve: false,
    });
    return c.json({ codeDelivery });
  })

  .post("/reset-password", validate("json", z.object({ ...phoneAndApp, code: codeSchema, newPassword: passwordSchema })), async (c) => {
    const body = c.req.valid("json");
    const deps = identityDeps(c);
    const { db } = deps;
    const account = { app: body.app, phone: body.phoneNumber };
    await enforceSmsCodeCheckLimits(deps, account);
    await checkingSmsCode(deps, account, () => consumeCode(db, c.env.PASSWORD_PEPPER, { ...account, purpose: "reset" }, body.code, deps.now));
    const user = await findUser(db, body.app, body.phoneNumber);
    if (!user) throw codeError("missing");
    // Proving the phone of an unconfirmed account this way drops what its registrant typed.
    if (!user.phoneVerified) await dropPendingSignup(db, user, deps.now, "reset");
    // The code came by SMS, so the phone is proven; every session and pending sign-in ends with the old password.
    await db
      .update(users)
      .set({ passwordHash: await hashPassword(body.newPassword, c.env.PASSWORD_PEPPER), mustChangePassword: false, phoneVerified: true })
      .where(eq(users.id, user.id));
    await endSessionsAndChallenges(db, user.id, deps.now);
    await recordAudit(db, { actorId: user.id, action: "auth.password_reset", target: `user:${user.id}`, details: { address: deps.address } }, deps.now);
    return c.json({ reset: true as const });
  })

  .post(
    "/change-password",
    requireUser,
    validate("json", z.object({ currentPassword: z.string().min(1).max(256), newPassword: passwordSchema })),
    async (c) => {
      const body = c.req.valid("json");
      const deps = identityDeps(c);
      const user = c.var.user;
      await enforceRateLimits(deps.db, [limitFor("passwordChangePerUser", String(user.id)), limitFor("signInPerAddress", deps.address)], deps.now);
      const ok = await verifyPassword(body.currentPassword, user.passwordHash ?? ABSENT_ACCOUNT_HASH, c.env.PASSWORD_PEPPER);
      if (!ok || !user.passwordHash) throw new ApiError("bad_request", "Current password is incorrect", { details: { reason: "wrong_password" } });
      await deps.db
        .update(users)
        .set({ passwordHash: await hashPassword(body.newPassword, c.env.PASSWORD_PEPPER), mustChangePassword: false })
        .where(eq(users.id, user.id));
      // Whoever knew the old password is signed out everywhere but here.
      await endSessionsAndChallenges(deps.db, user.id, deps.now, { family: c.var.sessionId });
      await recordAudit(
        deps.db,
        { actorId: user.id, action: "auth.password_changed", target: `user:${user.id}`, details: { via: "change-password" } },
        deps.now,
      );
      return c.json({ changed: true as const });
    },
  )

  .patch("/me", requireUser, validate("json", meSchema), async (c) => {
    const body = c.req.valid("json");
    const changes: Partial<Pick<User, "name" | "email" | "language">> = {};
    if (body.name !== undefined) changes.name = body.name;
    if (body.email !== undefined) changes.email = body.email;
    if (body.language !== undefined) changes.language = body.language;
    const updated = await c.var.db.update(users).set(changes).where(eq(users.id, c.var.user.id)).returning().get();
    if (!updated) throw new ApiError("unauthorized", "Invalid token");
    return c.json({ Item: toUserItem(updated) });
  });
