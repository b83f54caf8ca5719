import type { DeleteReauth } from "../../shared/account";
import { checkingSmsCode, enforceSmsCodeCheckLimits } from "../auth/code-checks";
import { deliverCode, type IdentityDeps } from "../auth/code-delivery";
import { consumeCode } from "../auth/codes";
import { ABSENT_ACCOUNT_HASH, verifyPassword } from "../auth/password";
import { enforceRateLimits, limitFor } from "../auth/rate-limit";
import type { SessionUser } from "../context";
import type { Db } from "../db/client";
import { ApiError } from "../errors";
import type { Logger } from "../log";
import { type ErasureResult, eraseAccount } from "./erase";

/** Administrators are erased by the owner, from the console, so the console never loses its last owner by a click. */
const administratorRefusal = () =>
  new ApiError("conflict", "Administrator accounts are deleted by the owner from the admin console", { details: { reason: "administrator" } });

/**
 * Which proof deleting one's own account needs: the password, or for an account without one a code
 * texted now to its number (purpose `delete-account`: a confirmed account's own code, like an SMS sign-in).
 */
export async function deletionProof(deps: IdentityDeps, user: SessionUser): Promise<DeleteReauth> {
  if (user.isAdmin) throw administratorRefusal();
  if (user.passwordHash) return { method: "password" };
  const delivery = await deliverCode(deps, {
    app: user.app,
    phone: user.phone,
    purpose: "delete-account",
    language: user.language,
    send: true,
    mayUseReserve: false,
  });
  return { method: "code", destination: delivery.destination };
}

/**
 * The signed-in account erases itself, once it has given its password again (limited like a
 * password change and a sign-in), or, without one, the code texted to it (the same limits as every
 * SMS code: per account and client, per address, and the growing hold on the client that keeps
 * guessing).
 */
export async function eraseOwnAccount(deps: IdentityDeps, user: SessionUser, proof: { password?: string; code?: string }): Promise<ErasureResult> {
  const { db, env, now } = deps;
  if (user.isAdmin) throw administratorRefusal();
  if (user.passwordHash) {
    if (proof.password === undefined) throw new ApiError("bad_request", "Enter your password", { details: { reason: "password_required" } });
    await enforceRateLimits(db, [limitFor("passwordChangePerUser", String(user.id)), limitFor("signInPerAddress", deps.address)], now);
    const ok = await verifyPassword(proof.password, user.passwordHash ?? ABSENT_ACCOUNT_HASH, env.PASSWORD_PEPPER);
    if (!ok) throw new ApiError("bad_request", "Password is incorrect", { details: { reason: "wrong_password" } });
  } else {
    const { code } = proof;
    if (code === undefined) throw new ApiError("bad_request", "Enter the code we texted you", { details: { reason: "code_required" } });
    const account = { app: user.app, phone: user.phone };
    await enforceSmsCodeCheckLimits(deps, account);
    await checkingSmsCode(deps, account, () => consumeCode(db, env.PASSWORD_PEPPER, { ...account, purpose: "delete-account" }, code, now));
  }
  const result = await eraseAccount(db, env, user.id, { by: "self", actorId: user.id });
  deps.log.info("account.erased", { userId: user.id, by: "self" });
  return result;
}

/**
 * An administrator erases an account for a written request (docs/admin.md): billing
 * administrators for drivers (it ends paid service time), the owner for administrators; nobody
 * erases themselves here, and the owner role is taken away first. The reference is audited in
 * the same batch as the erasure.
 */
export async function eraseAccountFor(
  deps: { db: Db; env: Pick<Env, "CAPTURE_SESSION" | "PASSWORD_PEPPER">; log: Logger },
  actor: SessionUser,
  target: { id: number; isAdmin: boolean; roleName: string | null },
  reference: string,
): Promise<ErasureResult> {
  const isOwner = actor.roleName === "owner";
  if (target.isAdmin && !isOwner) throw new ApiError("forbidden", "Only the owner may delete an administrator's account");
  if (!target.isAdmin && !isOwner && !actor.roleProperties?.billingDetails) throw new ApiError("forbidden", "Requires the billingDetails permission");
  if (target.id === actor.id) throw new ApiError("conflict", "You cannot delete your own account here", { details: { reason: "self" } });
  if (target.roleName === "owner") throw new ApiError("conflict", "Change the owner's role before deleting the account", { details: { reason: "owner" } });
  const result = await eraseAccount(deps.db, deps.env, target.id, { by: "admin", actorId: actor.id, reference });
  deps.log.info("account.erased", { userId: target.id, by: "admin", actorId: actor.id });
  return result;
}
