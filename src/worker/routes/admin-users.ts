import { Hono } from "hono";
import { z } from "zod";
import { userFiltersSchema, userListSchema, userOptOutsSchema, userProfilePatchSchema, userRoleSchema } from "../../shared/admin-users";
import { appSchema, emailSchema, languageSchema, phoneSchema } from "../../shared/auth";
import { insightsQuerySchema, whatIfRequestSchema } from "../../shared/insights-requests";
import { clearDriversHold, driversEngine, driversInsights, driversNotifications, driversOffers, driversWhatIf, switchDriversEngine } from "../admin/acting-for";
import { hasBillingDetails } from "../admin/billing-fields";
import { createAccount } from "../admin/create-account";
import {
  changeRole,
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
import { exportUsers, usersPage } from "../admin/users";
import { requireAdmin, requireOwner, requireUser } from "../auth/middleware";
import type { AppEnv } from "../context";
import { csvHeaders } from "../cross-cutting/csv";
import { idParam, pagingSchema } from "../cross-cutting/paging";
import { offersQuerySchema } from "../driver/dashboard";
import { closeLiveSockets } from "../platform/live-client";
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
  .get("/", validate("query", userListSchema), async (c) => c.json(await usersPage(c.var.db, c.var.user, c.req.valid("query"))))
  // The filtered set as CSV, streamed; exporting people's details is itself audited.
  .get("/export.csv", validate("query", userFiltersSchema), async (c) => {
    const filters = c.req.valid("query");
    return c.body(await exportUsers(c.var.db, c.var.user, filters), 200, csvHeaders(`users-${filters.app}.csv`));
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
  // Every session of the user ends, and with them their live dashboards' sockets (platform/live-client.ts).
  .post("/:id/sign-out", validate("param", idParam), validate("json", reasonBody), async (c) => {
    const { id } = c.req.valid("param");
    const signedOut = await signOutEverywhere(c.var.db, c.var.user, id, c.req.valid("json").reason);
    await closeLiveSockets(c.env, id, null);
    return c.json(signedOut);
  })
  .post("/:id/reset-totp", requireOwner, validate("param", idParam), validate("json", reasonBody), async (c) => {
    const { id } = c.req.valid("param");
    await resetTotp(c.var.db, c.var.user, id, c.req.valid("json").reason);
    await closeLiveSockets(c.env, id, null);
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
  // as the driver's own routes, read-only but for the system switch (admin/acting-for.ts).
  .get("/:id/dashboard/engine", validate("param", idParam), async (c) => c.json(await driversEngine(c.var.db, c.env, c.req.valid("param").id)))
  .get("/:id/dashboard/offers", validate("param", idParam), validate("query", offersQuerySchema), async (c) =>
    c.json(await driversOffers(c.var.db, c.env, c.req.valid("param").id, c.req.valid("query"))),
  )
  .get("/:id/dashboard/notifications", validate("param", idParam), async (c) => c.json(await driversNotifications(c.var.db, c.env, c.req.valid("param").id)))
  .get("/:id/dashboard/insights", validate("param", idParam), validate("query", insightsQuerySchema), async (c) =>
    c.json(await driversInsights(c.var.db, c.env, c.req.valid("param").id, c.req.valid("query").days)),
  )
  .post("/:id/dashboard/insights/what-if", validate("param", idParam), validate("json", whatIfRequestSchema), async (c) =>
    c.json(await driversWhatIf(c.var.db, c.env, c.var.user, c.req.valid("param").id, c.req.valid("json"))),
  )
  .post("/:id/dashboard/engine", validate("param", idParam), validate("json", systemSwitchBody), async (c) =>
    c.json({ engine: await switchDriversEngine(c.var.db, c.env, c.var.user, c.req.valid("param").id, c.req.valid("json")) }),
  )
  .post("/:id/engine/clear-hold", validate("param", idParam), async (c) =>
    c.json({ engine: await clearDriversHold(c.var.db, c.env, c.var.user, c.req.valid("param").id) }),
  );
