import { eq } from "drizzle-orm";
import { recordAudit } from "../cross-cutting/audit";
import { users } from "../db/schema";
import { ApiError } from "../errors";
import { findAccountUser } from "./accounts";
import { checkingSmsCode, enforceSmsCodeCheckLimits } from "./code-checks";
import { type CodeDelivery, deliverCode, type IdentityDeps } from "./code-delivery";
import { codeError, consumeCode } from "./codes";
import { ABSENT_ACCOUNT_HASH, hashPassword, verifyPassword } from "./password";
import { dropPendingSignup } from "./pending-signup";
import { enforceRateLimits, limitFor } from "./rate-limit";
import type { ChangePasswordRequest, PhoneAndApp, ResetPasswordRequest } from "./requests";
import { endSessionsAndChallenges, type User } from "./sign-in-flow";

/** A reset code. Unknown phones get the same answer and the same work, minus the SMS. */
export async function sendResetCode(deps: IdentityDeps, body: PhoneAndApp): Promise<{ codeDelivery: CodeDelivery }> {
  const user = await findAccountUser(deps.db, body.app, body.phoneNumber);
  const codeDelivery = await deliverCode(deps, {
    app: body.app,
    phone: body.phoneNumber,
    purpose: "reset",
    language: user?.language ?? "en",
    send: !!user,
    mayUseReserve: false,
  });
  return { codeDelivery };
}

/** A new password on the strength of a reset code: the code came by SMS, so the phone is proven too. */
export async function resetPassword(deps: IdentityDeps, body: ResetPasswordRequest): Promise<{ reset: true }> {
  const { db, env } = deps;
  const account = { app: body.app, phone: body.phoneNumber };
  await enforceSmsCodeCheckLimits(deps, account);
  await checkingSmsCode(deps, account, () => consumeCode(db, env.PASSWORD_PEPPER, { ...account, purpose: "reset" }, body.code, deps.now));
  const user = await findAccountUser(db, body.app, body.phoneNumber);
  if (!user) throw codeError("missing");
  // Proving the phone of an unconfirmed account this way drops what its registrant typed.
  if (!user.phoneVerified) await dropPendingSignup(db, user, deps.now, "reset");
  // Every session and pending sign-in ends with the old password.
  await db
    .update(users)
    .set({ passwordHash: await hashPassword(body.newPassword, env.PASSWORD_PEPPER), mustChangePassword: false, phoneVerified: true })
    .where(eq(users.id, user.id));
  await endSessionsAndChallenges(db, user.id, deps.now, {}, deps.sessionsEnded);
  await recordAudit(db, { actorId: user.id, action: "auth.password_reset", target: `user:${user.id}`, details: { address: deps.address } }, deps.now);
  return { reset: true };
}

/** A signed-in user's new password: whoever knew the old one is signed out everywhere but in `sessionId`, the caller's session. */
export async function changePassword(deps: IdentityDeps, user: User, sessionId: string, body: ChangePasswordRequest): Promise<{ changed: true }> {
  const { db, env } = deps;
  await enforceRateLimits(db, [limitFor("passwordChangePerUser", String(user.id)), limitFor("signInPerAddress", deps.address)], deps.now);
  const ok = await verifyPassword(body.currentPassword, user.passwordHash ?? ABSENT_ACCOUNT_HASH, env.PASSWORD_PEPPER);
  if (!ok || !user.passwordHash) throw new ApiError("bad_request", "Current password is incorrect", { details: { reason: "wrong_password" } });
  await db
    .update(users)
    .set({ passwordHash: await hashPassword(body.newPassword, env.PASSWORD_PEPPER), mustChangePassword: false })
    .where(eq(users.id, user.id));
  await endSessionsAndChallenges(db, user.id, deps.now, { family: sessionId }, deps.sessionsEnded);
  await recordAudit(db, { actorId: user.id, action: "auth.password_changed", target: `user:${user.id}`, details: { via: "change-password" } }, deps.now);
  return { changed: true };
}
