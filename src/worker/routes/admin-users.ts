import { Hono } from "hono";
import { z } from "zod";
import { userFiltersSchema, userListSchema, userOptOutsSchema, userProfilePatchSchema, userRoleSchema } from "../../shared/admin-users";
import { appSchema, emailSchema, languageSchema, phoneSchema } from "../../shared/auth";
import { insightsQuerySchema, whatIfRequestSchema } from "../../shared/insights-requests";
import { assertMayListByReferral, hasBillingDetails } from "../admin/billing-fields";
import { createAccount } from "../admin/create-account";
import {
  changeRole,
  findDriver,
  openActingFor,
  resetTotp,
  setOptOuts,
  signOutEverywhere,
  updateProfile,
  userAudit,
  userDetail,
  userMessages,
  userSessions,
} from "../admin/user-detail";
import { userCsvChunks, userCsvHeader, userPage } from "../admin/users";
import { requireAdmin, requireOwner, requireUser } from "../auth/middleware";
import { enforceCallerLimits, limitFor } from "../auth/rate-limit";
import type { AppEnv } from "../context";
import { recordAudit, userTarget } from "../cross-cutting/audit";
import { csvHeaders, csvStream } from "../cross-cutting/csv";
import { idParam, pagingSchema } from "../cross-cutting/paging";
import { offersPage, offersQuerySchema } from "../driver/dashboard";
import { engineView, switchEngine } from "../driver/engine-view";
import { ApiError } from "../errors";
import { engineOf } from "../platform/engine-client";
import { historyOf } from "../platform/history-client";
import { validate } from "../validate";

/** Actions on someone's account say why; the reason is kept in the audit entry. */
const reasonBody = z.object({ reason: z.string().trim().min(3, "Say why (at least 3 characters)").max(500) }).strict();

const systemSwitchBody = z.object({ on: z.boolean(), reason: reasonBody.shape.reason }).strict();

/** Which of a driver's screens an administrator opens. */
const actingForBody = z.object({ view: z.enum(["dashboard", "insights"]) }).strict();

const createUserSchema = z.object({
  phoneNumber: phoneSchema,
  app: appSchema,
  name: z.string().trim().min(1).max(100),
  email: z.union([z.literal("").transform(() => null), z.null(), emailSchema]).optional(),
  language: languageSchema.default("en"),
  isAdmin: z.boolean().default(false),
  roleName: z.string().trim().min(1).max(40).optional(),
  billingDetails: z.boolean().default(false),
});

/**
 * The console's users: /api/admin/users. Accounts an administrator creates get a temporary
 * password sent only by SMS to the account's phone (admin/create-account.ts); only the owner
 * creates administrators.
 */
export const adminUserRoutes = new Hono<AppEnv>()
  .use(requireUser, requireAdmin)
  // The users page: filters, search, sort and paging in D1 (docs/admin.md). Referral codes are billing data.
  .get("/", validate("query", userListSchema), async (c) => {
    const query = c.req.valid("query");
    assertMayListByReferral(c.var.user, query);
    return c.json(await userPage(c.var.db, query, hasBillingDetails(c.var.user)));
  })
  // The filtered set as CSV, streamed; exporting people's details is itself audited.
  .get("/export.csv", validate("query", userFiltersSchema), async (c) => {
    const filters = c.req.valid("query");
    assertMayListByReferral(c.var.user, filters);
    const billing = hasBillingDetails(c.var.user);
    await recordAudit(c.var.db, { actorId: c.var.user.id, action: "admin.users_exported", details: { filters } });
    return c.body(csvStream(userCsvHeader(billing), userCsvChunks(c.var.db, filters, billing)), 200, csvHeaders(`users-${filters.app}.csv`));
  })
  .post("/", validate("json", createUserSchema), async (c) =>
    c.json(await createAccount({ db: c.var.db, env: c.env, config: c.var.config, log: c.var.log }, c.var.user, c.req.valid("json")), 201),
  )
  // The user page (docs/admin.md). Every change answers the user as it now is, and is audited.
  .get("/:id", validate("param", idParam), async (c) => c.json({ user: await userDetail(c.var.db, c.req.valid("param").id, hasBillingDetails(c.var.user)) }))
  .patch("/:id", validate("param", idParam), validate("json", userProfilePatchSchema), async (c) => {
    const { id } = c.req.valid("param");
    await updateProfile(c.var.db, c.var.user, id, c.req.valid("json"));
    return c.json({ user: await userDetail(c.var.db, id, hasBillingDetails(c.var.user)) });
  })
  .get("/:id/sessions", validate("param", idParam), validate("query", pagingSchema), async (c) =>
    c.json(await userSessions(c.var.db, c.req.valid("param").id, c.req.valid("query"))),
  )
  .post("/:id/sign-out", validate("param", idParam), validate("json", reasonBody), async (c) =>
    c.json(await signOutEverywhere(c.var.db, c.var.user, c.req.valid("param").id, c.req.valid("json").reason)),
  )
  .post("/:id/reset-totp", requireOwner, validate("param", idParam), validate("json", reasonBody), async (c) => {
    const { id } = c.req.valid("param");
    await resetTotp(c.var.db, c.var.user, id, c.req.valid("json").reason);
    return c.json({ user: await userDetail(c.var.db, id, hasBillingDetails(c.var.user)) });
  })
  .put("/:id/role", requireOwner, validate("param", idParam), validate("json", userRoleSchema), async (c) => {
    const { id } = c.req.valid("param");
    await changeRole(c.var.db, c.var.user, id, c.req.valid("json"));
    return c.json({ user: await userDetail(c.var.db, id, hasBillingDetails(c.var.user)) });
  })
  .put("/:id/opt-outs", validate("param", idParam), validate("json", userOptOutsSchema), async (c) => {
    const { id } = c.req.valid("param");
    await setOptOuts(c.var.db, c.var.user, id, c.req.valid("json"));
    return c.json({ user: await userDetail(c.var.db, id, hasBillingDetails(c.var.user)) });
  })
  .get("/:id/messages", validate("param", idParam), validate("query", pagingSchema), async (c) =>
    c.json(await userMessages(c.var.db, c.req.valid("param").id, c.req.valid("query"), hasBillingDetails(c.var.user))),
  )
  .get("/:id/audit", validate("param", idParam), validate("query", pagingSchema), async (c) =>
    c.json(await userAudit(c.var.db, c.req.valid("param").id, c.req.valid("query"), hasBillingDetails(c.var.user))),
  )
  // Opening a driver's screens ("acting for", docs/admin.md) is audited, once per opening: the
  // screen sends this first and shows nothing of the driver's unless the row was written; its
  // reads and polling after it write nothing.
  .post("/:id/acting-for", validate("param", idParam), validate("json", actingForBody), async (c) => {
    const { view } = c.req.valid("json");
    await openActingFor(c.var.db, c.var.user, c.req.valid("param").id, view);
    return c.json({ opened: view }, 201);
  })
  // The driver's dashboard as the driver sees it ("acting for", docs/admin.md): the same answers
  // as the driver's own routes (src/worker/driver/dashboard.ts), read-only but for the system switch.
  .get("/:id/dashboard/engine", validate("param", idParam), async (c) => c.json(await engineView(c.env, await findDriver(c.var.db, c.req.valid("param").id))))
  .get("/:id/dashboard/offers", validate("param", idParam), validate("query", offersQuerySchema), async (c) => {
    const driver = await findDriver(c.var.db, c.req.valid("param").id);
    return c.json(await offersPage(c.env, driver.id, c.req.valid("query")));
  })
  .get("/:id/dashboard/insights", validate("param", idParam), validate("query", insightsQuerySchema), async (c) => {
    const driver = await findDriver(c.var.db, c.req.valid("param").id);
    return c.json(await historyOf(c.env, driver.id).insights(driver.id, c.req.valid("query").days));
  })
  // A what-if changes nothing: the admin may try filters for the driver, not apply them.
  .post("/:id/dashboard/insights/what-if", validate("param", idParam), validate("json", whatIfRequestSchema), async (c) => {
    const driver = await findDriver(c.var.db, c.req.valid("param").id);
    await enforceCallerLimits(c.var.db, [limitFor("whatIfPerUser", String(c.var.user.id))]);
    return c.json(await historyOf(c.env, driver.id).whatIf(driver.id, c.req.valid("json")));
  })
  // Any administrator may switch a driver's system for support: it changes no money or access and
  // the driver can switch it back; the reason and the outcome are audited.
  .post("/:id/dashboard/engine", validate("param", idParam), validate("json", systemSwitchBody), async (c) => {
    const driver = await findDriver(c.var.db, c.req.valid("param").id);
    const { on, reason } = c.req.valid("json");
    const engine = await switchEngine(c.env, driver.id, on);
    await recordAudit(c.var.db, {
      actorId: c.var.user.id,
      action: "admin.system_changed",
      target: userTarget(driver.id),
      details: { on, reason, before: driver.status, state: engine.state },
    });
    return c.json({ engine });
  })
  // A 420 (a request signature asked for) holds the search or accepting until a signer is configured
  // or an administrator clears it here; the engine then tries again, once. Audited.
  .post("/:id/engine/clear-hold", validate("param", idParam), async (c) => {
    const driver = await findDriver(c.var.db, c.req.valid("param").id);
    const engine = await engineOf(c.env, driver.id).clearSignatureHold(driver.id);
    if (!engine) throw new ApiError("conflict", "The engine is not held for a signature", { details: { reason: "no_hold" } });
    await recordAudit(c.var.db, {
      actorId: c.var.user.id,
      action: "admin.engine_hold_cleared",
      target: userTarget(driver.id),
      details: { state: engine.state },
    });
    return c.json({ engine });
  });
