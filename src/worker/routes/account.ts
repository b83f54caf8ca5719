import { Hono } from "hono";
import { adminEraseSchema, deleteAccountSchema } from "../../shared/account";
import { deletionProof, eraseAccountFor, eraseOwnAccount } from "../account/erasure-requests";
import { accountExport, EXPORT_FILENAME } from "../account/export";
import { findUser } from "../admin/user-detail";
import { identityDeps } from "../auth/identity-deps";
import { requireAdmin, requireUser, requireVerified } from "../auth/middleware";
import { enforceCallerLimits, limitFor } from "../auth/rate-limit";
import type { AppEnv } from "../context";
import { idParam } from "../cross-cutting/paging";
import { validate } from "../validate";

/**
 * The signed-in account's own data (docs/api.md): a copy of it, and its deletion. Deletion asks the
 * password again, or for an account without one a code texted to its number (purpose
 * `delete-account`, limited like every code), and the typed word (account/erasure-requests.ts).
 */
export const accountRoutes = new Hono<AppEnv>()
  .get("/export", requireUser, requireVerified, async (c) => {
    await enforceCallerLimits(c.var.db, [limitFor("accountExportPerUser", String(c.var.user.id))]);
    const body = await accountExport(c.var.db, c.env, c.var.user);
    return c.json(body, 200, { "Content-Disposition": `attachment; filename="${EXPORT_FILENAME}"`, "Cache-Control": "no-store" });
  })
  // Which proof deletion needs; for an account without a password, the code is texted now.
  .post("/delete/start", requireUser, requireVerified, async (c) => c.json(await deletionProof(identityDeps(c), c.var.user)))
  .post("/delete", requireUser, requireVerified, validate("json", deleteAccountSchema), async (c) =>
    c.json(await eraseOwnAccount(identityDeps(c), c.var.user, c.req.valid("json"))),
  );

/**
 * An administrator erases an account for a written request (docs/admin.md): billing
 * administrators for drivers, the owner for administrators, nobody themselves here
 * (account/erasure-requests.ts).
 */
export const adminAccountRoutes = new Hono<AppEnv>().post(
  "/:id/erase",
  requireUser,
  requireAdmin,
  validate("param", idParam),
  validate("json", adminEraseSchema),
  async (c) => {
    const target = await findUser(c.var.db, c.req.valid("param").id);
    return c.json(await eraseAccountFor({ db: c.var.db, env: c.env, log: c.var.log }, c.var.user, target, c.req.valid("json").reference));
  },
);
