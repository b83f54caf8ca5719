import { Hono } from "hono";
import { adminEraseSchema, type DeleteReauth, deleteAccountSchema } from "../../shared/account";
import { eraseAccount } from "../account/erase";
import { accountExport, EXPORT_FILENAME } from "../account/export";
import { findUser } from "../admin/user-detail";
import { checkingSmsCode, enforceSmsCodeCheckLimits } from "../auth/code-checks";
import { deliverCode } from "../auth/code-delivery";
import { consumeCode } from "../auth/codes";
import { identityDeps } from "../auth/identity-deps";
import { requireAdmin, requireUser, requireVerified } from "../auth/middleware";
import { ABSENT_ACCOUNT_HASH, verifyPassword } from "../auth/password";
import { clientAddress, enforceCallerLimits, enforceRateLimits, limitFor } from "../auth/rate-limit";
import type { AppEnv } from "../context";
import { idParam } from "../cross-cutting/paging";
import { ApiError } from "../errors";
import { validate } from "../validate";

/** Administrators are erased by the owner, from the console, so the console never loses its last owner by a click. */
const administratorRefusal = () =>
  new ApiError("conflict", "Administrator accounts are deleted by the owner from the admin console", { details: { reason: "administrator" } });

/**
 * The signed-in account's own data (docs/api.md): a copy of it, and its deletion. Deletion asks the
 * password again, or for an account without one a code texted to its number (purpose
 * `delete-account`, limited like every code), and the typed word.
 */
export const accountRoutes = new Hono<AppEnv>()
  .get("/export", requireUser, requireVerified, async (c) => {
    await enforceCallerLimits(c.var.db, [limitFor("accountExportPerUser", String(c.var.user.id))]);
    const body = await accountExport(c.var.db, c.env, c.var.user);
    return c.json(body, 200, { "Content-Disposition": `attachment; filename="${EXPORT_FILENAME}"`, "Cache-Control": "no-store" });
  })
  // Which proof deletion needs; for an account without a password, the code is texted now.
  .post("/delete/start", requireUser, requireVerified, async (c) => {
    const user = c.var.user;
    if (user.isAdmin) throw administratorRefusal();
    if (user.passwordHash) return c.json({ method: "password" } satisfies DeleteReauth as DeleteReauth);
    // A code for an account whose only proof is its phone: a confirmed account's own code, like an SMS sign-in.
    const delivery = await deliverCode(identityDeps(c), {
      app: user.app,
      phone: user.phone,
      purpose: "delete-account",
      language: user.language,
      send: true,
      mayUseReserve: false,
    });
    return c.json({ method: "code", destination: delivery.destination } satisfies DeleteReauth as DeleteReauth);
  })
  .post("/delete", requireUser, requireVerified, validate("json", deleteAccountSchema), async (c) => {
    const user = c.var.user;
    const db = c.var.db;
    const body = c.req.valid("json");
    const now = Date.now();
    if (user.isAdmin) throw administratorRefusal();
    if (user.passwordHash) {
      if (body.password === undefined) throw new ApiError("bad_request", "Enter your password", { details: { reason: "password_required" } });
      await enforceRateLimits(
        db,
        [limitFor("passwordChangePerUser", String(user.id)), limitFor("signInPerAddress", clientAddress(c.req.header("CF-Connecting-IP")))],
        now,
      );
      const ok = await verifyPassword(body.password, user.passwordHash ?? ABSENT_ACCOUNT_HASH, c.env.PASSWORD_PEPPER);
      if (!ok) throw new ApiError("bad_request", "Password is incorrect", { details: { reason: "wrong_password" } });
    } else {
      const { code } = body;
      if (code === undefined) throw new ApiError("bad_request", "Enter the code we texted you", { details: { reason: "code_required" } });
      // The same limits as every SMS code: per account and client, per address, and the growing
      // hold on the client that keeps guessing (routes/auth.ts).
      const deps = identityDeps(c);
      const account = { app: user.app, phone: user.phone };
      await enforceSmsCodeCheckLimits(deps, account);
      await checkingSmsCode(deps, account, () => consumeCode(db, c.env.PASSWORD_PEPPER, { ...account, purpose: "delete-account" }, code, now));
    }
    const result = await eraseAccount(db, c.env, user.id, { by: "self", actorId: user.id });
    c.var.log.info("account.erased", { userId: user.id, by: "self" });
    return c.json(result);
  });

/**
 * An administrator erases an account for a written request (docs/admin.md): billing
 * administrators for drivers (it ends paid service time), the owner for administrators; nobody
 * erases themselves here, and the owner role is taken away first. The reference is audited in
 * the same batch as the erasure.
 */
export const adminAccountRoutes = new Hono<AppEnv>().post(
  "/:id/erase",
  requireUser,
  requireAdmin,
  validate("param", idParam),
  validate("json", adminEraseSchema),
  async (c) => {
    const actor = c.var.user;
    const { id } = c.req.valid("param");
    const target = await findUser(c.var.db, id);
    const isOwner = actor.roleName === "owner";
    if (target.isAdmin && !isOwner) throw new ApiError("forbidden", "Only the owner may delete an administrator's account");
    if (!target.isAdmin && !isOwner && !actor.roleProperties?.billingDetails) throw new ApiError("forbidden", "Requires the billingDetails permission");
    if (target.id === actor.id) throw new ApiError("conflict", "You cannot delete your own account here", { details: { reason: "self" } });
    if (target.roleName === "owner") throw new ApiError("conflict", "Change the owner's role before deleting the account", { details: { reason: "owner" } });
    const result = await eraseAccount(c.var.db, c.env, id, { by: "admin", actorId: actor.id, reference: c.req.valid("json").reference });
    c.var.log.info("account.erased", { userId: id, by: "admin", actorId: actor.id });
    return c.json(result);
  },
);
