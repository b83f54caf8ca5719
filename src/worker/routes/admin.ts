import { Hono } from "hono";
import { z } from "zod";
import { driverAudienceSchema, invitationAudienceSchema } from "../../shared/audience";
import { DEFAULT_PAGE_SIZE, FIRST_PAGE, PAGE_SIZES } from "../../shared/paging";
import { requireAdmin, requireUser } from "../auth/middleware";
import type { AppEnv } from "../context";
import { ApiError } from "../errors";
import { assertMayFilterByReferral, driverPage, invitationPage, toDriverRow } from "../messaging/audience";
import {
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
    assertMayFilterByReferral(c.var.user, c.req.valid("query").referral);
    const page = await driverPage(c.env.DB, c.req.valid("query"));
    return c.json({ ...page, rows: page.rows.map(toDriverRow) });
  })
  .get("/invitation-audience", validate("query", invitationAudienceSchema), async (c) => c.json(await invitationPage(c.env.DB, c.req.valid("query"))))
  .get("/regions", validate("query", z.object({ app: z.enum(["flex", "spark"]).default("flex") })), async (c) => {
    const column = c.req.valid("query").app === "flex" ? "human_region" : "delivery_area";
    // Read off the (app, region) index; bounded, though in practice a few dozen.
    const rows = await c.env.DB.prepare(`SELECT DISTINCT ${column} AS region FROM users WHERE app = ? AND ${column} IS NOT NULL ORDER BY ${column} LIMIT 1000`)
      .bind(c.req.valid("query").app)
      .all<{ region: string }>();
    return c.json({ Items: rows.results.map((r) => r.region) });
  })
  .get("/settings", async (c) => {
    // The "only {name} can uncheck this" label names the owner admin; OWNER_NAME covers a database without one.
    const owner = await c.env.DB.prepare("SELECT name FROM users WHERE is_admin = 1 AND role_name = 'owner' ORDER BY id LIMIT 1").first<{ name: string }>();
    return c.json({
      ownerName: owner?.name ?? c.env.OWNER_NAME,
      smsProvider: c.env.SMS_PROVIDER,
      whatsappProvider: c.env.WHATSAPP_PROVIDER,
      sendRatePerSecond: sendRate(c.env),
    });
  })
  .post("/campaigns", validate("json", campaignRequestSchema), async (c) => {
    const result = await createCampaign(c.env, c.var.log, c.var.user, toCampaignInput(c.req.valid("json")));
    return c.json({ campaign: result.campaign, message: result.message }, result.created ? 201 : 200);
  })
  .get("/campaigns", validate("query", pagingSchema), async (c) => {
    const { page, pageSize } = c.req.valid("query");
    return c.json(await listCampaigns(c.env.DB, page, pageSize));
  })
  .get("/campaigns/:id", validate("param", idParam), async (c) => {
    const campaign = await getCampaign(c.env.DB, c.req.valid("param").id);
    if (!campaign) throw new ApiError("not_found", "No such campaign");
    return c.json({ campaign });
  })
  .get("/campaigns/:id/messages", validate("param", idParam), validate("query", pagingSchema.extend({ status: z.enum(STATUSES).optional() })), async (c) => {
    const { id } = c.req.valid("param");
    const { status, page, pageSize } = c.req.valid("query");
    if (!(await c.env.DB.prepare("SELECT 1 FROM campaigns WHERE id = ?").bind(id).first())) throw new ApiError("not_found", "No such campaign");
    return c.json(await ledgerPage(c.env.DB, id, status, page, pageSize));
  })
  .post("/campaigns/:id/retry-failed", validate("param", idParam), async (c) => {
    const result = await retryFailed(c.env, c.var.log, c.var.user, c.req.valid("param").id);
    return c.json({ campaign: result.campaign, message: result.message }, result.created ? 201 : 200);
  })
  .get("/campaigns/:id/export.csv", validate("param", idParam), async (c) => {
    const { id } = c.req.valid("param");
    if (!(await c.env.DB.prepare("SELECT 1 FROM campaigns WHERE id = ?").bind(id).first())) throw new ApiError("not_found", "No such campaign");
    return c.body(ledgerCsv(c.env.DB, id), 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="campaign-${id}.csv"`,
    });
  });
