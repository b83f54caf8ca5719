import { and, asc, count, desc, eq, isNotNull } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { driverAudienceSchema, invitationAudienceSchema } from "../../shared/audience";
import { phoneSchema } from "../../shared/auth";
import { DEFAULT_PAGE_SIZE, FIRST_PAGE, PAGE_SIZES, pageOffset } from "../../shared/paging";
import { requireAdmin, requireUser } from "../auth/middleware";
import type { AppEnv } from "../context";
import { outbox, users } from "../db/schema";
import { ApiError } from "../errors";
import { driverPage, invitationPage, toDriverRow } from "../messaging/audience";
import {
  campaignExists,
  campaignRequestSchema,
  createCampaign,
  getCampaign,
  ledgerCsv,
  ledgerPage,
  listCampaigns,
  retryFailed,
  STATUSES,
  toCampaignInput,
} from "../messaging/campaigns";
import { sendRate } from "../messaging/pacer";
import { validate } from "../validate";

export const pagingSchema = z.object({
  page: z.coerce.number().int().min(FIRST_PAGE).max(100_000).default(FIRST_PAGE),
  pageSize: z.coerce
    .number()
    .int()
    .refine((n) => (PAGE_SIZES as readonly number[]).includes(n), `Rows per page must be one of ${PAGE_SIZES.join(", ")}`)
    .default(DEFAULT_PAGE_SIZE),
});
const idParam = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

/** The admin console's API: /api/admin/* (docs/api.md). Administrators only. */
export const adminRoutes = new Hono<AppEnv>()
  .use(requireUser, requireAdmin)
  // Panel 1's review: filters, search, sort and paging all run in D1; the browser gets one page and the count.
  .get("/audience", validate("query", driverAudienceSchema), async (c) => {
    const page = await driverPage(c.var.db, c.req.valid("query"));
    const now = Date.now();
    return c.json({ ...page, rows: page.rows.map((user) => toDriverRow(user, now)) });
  })
  .get("/invitation-audience", validate("query", invitationAudienceSchema), async (c) => c.json(await invitationPage(c.var.db, c.req.valid("query"))))
  .get("/regions", validate("query", z.object({ app: z.enum(["flex", "spark"]).default("flex") })), async (c) => {
    const { app } = c.req.valid("query");
    const column = app === "flex" ? users.humanRegion : users.deliveryArea;
    // Read off the (app, region) index; bounded, though in practice a few dozen.
    const rows = await c.var.db
      .selectDistinct({ region: column })
      .from(users)
      .where(and(eq(users.app, app), isNotNull(column)))
      .orderBy(asc(column))
      .limit(1000);
    return c.json({ Items: rows.map((r) => r.region as string) });
  })
  .get("/settings", async (c) => {
    // The "only {name} can uncheck this" label names the owner admin; OWNER_NAME covers a database without one.
    const owner = await c.var.db
      .select({ name: users.name })
      .from(users)
      .where(and(eq(users.isAdmin, true), eq(users.roleName, "owner")))
      .orderBy(asc(users.id))
      .get();
    return c.json({
      ownerName: owner?.name ?? c.env.OWNER_NAME,
      smsProvider: c.env.SMS_PROVIDER,
      whatsappProvider: c.env.WHATSAPP_PROVIDER,
      sendRatePerSecond: sendRate(c.env),
    });
  })
  // What the embedded providers "sent", newest first (the e2e tests read codes and messages here).
  .get("/outbox", validate("query", pagingSchema.extend({ to: phoneSchema.optional(), channel: z.enum(["sms", "whatsapp"]).optional() })), async (c) => {
    const { page, pageSize, to, channel } = c.req.valid("query");
    const db = c.var.db;
    const where = and(to ? eq(outbox.to, to) : undefined, channel ? eq(outbox.channel, channel) : undefined);
    const [counted, rows] = await db.batch([
      db.select({ n: count() }).from(outbox).where(where),
      db.select().from(outbox).where(where).orderBy(desc(outbox.id)).limit(pageSize).offset(pageOffset(page, pageSize)),
    ]);
    return c.json({ total: counted[0]?.n ?? 0, page, pageSize, rows });
  })
  .post("/campaigns", validate("json", campaignRequestSchema), async (c) => {
    const result = await createCampaign(c.env, c.var.log, c.var.user, toCampaignInput(c.req.valid("json")));
    return c.json({ campaign: result.campaign, message: result.message }, result.created ? 201 : 200);
  })
  .get("/campaigns", validate("query", pagingSchema), async (c) => {
    const { page, pageSize } = c.req.valid("query");
    return c.json(await listCampaigns(c.var.db, page, pageSize));
  })
  .get("/campaigns/:id", validate("param", idParam), async (c) => {
    const campaign = await getCampaign(c.var.db, c.req.valid("param").id);
    if (!campaign) throw new ApiError("not_found", "No such campaign");
    return c.json({ campaign });
  })
  .get("/campaigns/:id/messages", validate("param", idParam), validate("query", pagingSchema.extend({ status: z.enum(STATUSES).optional() })), async (c) => {
    const { id } = c.req.valid("param");
    const { status, page, pageSize } = c.req.valid("query");
    if (!(await campaignExists(c.var.db, id))) throw new ApiError("not_found", "No such campaign");
    return c.json(await ledgerPage(c.var.db, id, status, page, pageSize));
  })
  .post("/campaigns/:id/retry-failed", validate("param", idParam), async (c) => {
    const result = await retryFailed(c.env, c.var.log, c.var.user, c.req.valid("param").id);
    return c.json({ campaign: result.campaign, message: result.message }, result.created ? 201 : 200);
  })
  .get("/campaigns/:id/export.csv", validate("param", idParam), async (c) => {
    const { id } = c.req.valid("param");
    if (!(await campaignExists(c.var.db, id))) throw new ApiError("not_found", "No such campaign");
    return c.body(ledgerCsv(c.var.db, id), 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="campaign-${id}.csv"`,
    });
  });
