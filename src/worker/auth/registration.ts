import { eq } from "drizzle-orm";
import { REGISTRATION_CONSENT } from "../../shared/consent-texts";
import { consentStatement } from "../compliance/consent";
import { restoreErasedOptOuts } from "../compliance/erased-opt-outs";
import { recordAudit } from "../cross-cutting/audit";
import { users } from "../db/schema";
import { ApiError } from "../errors";
import { findAccountUser } from "./accounts";
import { checkingSmsCode, enforceSmsCodeCheckLimits } from "./code-checks";
import { type CodeDelivery, deliverCode, enforceCodeSendLimits, type IdentityDeps, issueAndSendCode } from "./code-delivery";
import { codeError, consumeCode } from "./codes";
import { insertUser } from "./insert-user";
import { hashPassword, verifyPassword } from "./password";
import { applyPendingSignup, dropPendingSignup, holdSignupStatement } from "./pending-signup";
import { enforceRateLimits, limitFor } from "./rate-limit";
import type { ConfirmRequest, PhoneAndApp, RegisterRequest } from "./requests";
import { advanceSignIn, endSessionsAndChallenges, type User } from "./sign-in-flow";
import type { SignUpClaims } from "./sign-up-claims";

/** Registration: an account whose phone is not yet proven, and the code that proves it. */
export async function register(deps: IdentityDeps, claims: SignUpClaims, body: RegisterRequest): Promise<{ codeDelivery: CodeDelivery }> {
  const { db, env } = deps;
  await enforceRateLimits(db, [limitFor("registerPerAddress", deps.address)], deps.now);
  if (await findAccountUser(db, body.app, body.phoneNumber)) throw new ApiError("conflict", "An account with this phone number already exists");

  // A reseller's referral code (the driver becomes their client) or a driver's invite code from an invite link.
  let signUpCode: Awaited<ReturnType<SignUpClaims["resolveCode"]>> = null;
  if (body.referralCode) {
    signUpCode = await claims.resolveCode(db, body.app, body.referralCode);
    if (!signUpCode) throw new ApiError("unprocessable", "Referral code not found. Check it or leave it empty", { details: { field: "referralCode" } });
  }
  const referralCode = signUpCode && "referralCode" in signUpCode ? signUpCode.referralCode : null;
  const invitedBy = signUpCode && "invitedBy" in signUpCode ? signUpCode.invitedBy : null;

  // Checked before the account exists, so a throttled send never leaves an account without a code.
  await enforceCodeSendLimits(deps, body.phoneNumber, "confirm", { send: true, mayUseReserve: false });
  const passwordHash = await hashPassword(body.password, env.PASSWORD_PEPPER);
  const account = await insertUser(db, {
    app: body.app,
    phone: body.phoneNumber,
    name: body.name,
    email: body.email ?? null,
    passwordHash,
    language: body.language,
    createdAt: deps.now,
  });
  // A number whose erased account had opted out is opted out again (src/worker/compliance/erased-opt-outs.ts).
  await restoreErasedOptOuts(db, env.PASSWORD_PEPPER, [account.phone]);
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
  return { codeDelivery };
}

/**
 * The code proves the phone, for whoever holds it, who may not be whoever registered: every
 * session and sign-in made before ends, and what was typed at registration (the password, the
 * referral code or inviter, the name, the email, the marketing tick) takes effect only if the
 * request carries the registration password too (the registrant confirming). Otherwise all of it
 * is dropped and the answer is a NEW_PASSWORD_REQUIRED challenge, so the phone's owner sets their
 * own password. Either way the answer continues as a sign-in (`tokens` or the next challenge).
 */
export async function confirmPhone(deps: IdentityDeps, claims: SignUpClaims, body: ConfirmRequest) {
  const { db, env } = deps;
  const account = { app: body.app, phone: body.phoneNumber };
  await enforceSmsCodeCheckLimits(deps, account);
  await checkingSmsCode(deps, account, () => consumeCode(db, env.PASSWORD_PEPPER, { ...account, purpose: "confirm" }, body.code, deps.now));
  const user = await findAccountUser(db, body.app, body.phoneNumber);
  if (!user) throw codeError("missing");
  if (user.phoneVerified) throw new ApiError("conflict", "This account is already confirmed");
  const registrant = body.password !== undefined && !!user.passwordHash && (await verifyPassword(body.password, user.passwordHash, env.PASSWORD_PEPPER));
  let confirmed: User = registrant ? { ...user, phoneVerified: true } : { ...user, phoneVerified: true, passwordHash: null, mustChangePassword: true };
  await db
    .update(users)
    .set({ phoneVerified: true, passwordHash: confirmed.passwordHash, mustChangePassword: confirmed.mustChangePassword })
    .where(eq(users.id, user.id));
  confirmed = registrant ? await applyPendingSignup(db, claims, confirmed, deps.now) : await dropPendingSignup(db, confirmed, deps.now, "confirm");
  await endSessionsAndChallenges(db, user.id, deps.now, {}, deps.sessionsEnded);
  await recordAudit(db, { actorId: user.id, action: "auth.phone_confirmed", target: `user:${user.id}`, details: { passwordKept: registrant } }, deps.now);
  const step = await advanceSignIn(deps, confirmed, { method: registrant ? "password" : "sms", passed: [] });
  return { confirmed: true as const, ...step };
}

/** Another confirm code. Unknown and already-confirmed phones get the same answer and the same work, minus the SMS. */
export async function resendConfirmCode(deps: IdentityDeps, body: PhoneAndApp): Promise<{ codeDelivery: CodeDelivery }> {
  const user = await findAccountUser(deps.db, body.app, body.phoneNumber);
  const codeDelivery = await deliverCode(deps, {
    app: body.app,
    phone: body.phoneNumber,
    purpose: "confirm",
    language: user?.language ?? "en",
    send: !!user && !user.phoneVerified,
    mayUseReserve: false,
  });
  return { codeDelivery };
}
