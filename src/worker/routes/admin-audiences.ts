import { and, asc, eq, isNotNull } from "drizzle-orm";
import { type Context, Hono } from "hono";
import { z } from "zod";
import { driverAudienceSchema, invitationAudienceSchema } from "../../shared/audience";
import { phoneSchema } from "../../shared/auth";
import { CAMPAIGN_PURPOSES, categoryOf } from "../../shared/marketing";
import { assertMayListByReferral, hasBillingDetails, visibleRow } from "../admin/billing-fields";
import { requireAdmin, requireUser } from "../auth/middleware";
import { complianceNow } from "../compliance/clock";
import { consentHistory, consentState } from "../compliance/consent";
import { nextAllowedAt } from "../compliance/quiet-hours";
import type { AppEnv } from "../context";
import { pagingSchema } from "../cross-cutting/paging";
import { users } from "../db/schema";
import { ApiError } from "../errors";
import { driverPage, invitationPage, toDriverRow } from "../messaging/audience";
import { MAX_SCHEDULE_AHEAD_MS, normalizePhones } from "../messaging/campaign-request";
import { reviewSummary } from "../messaging/campaign-review";
import { exclusionsOf, type SendRules } from "../messaging/exclusions";
import type { RecipientSource } from "../messaging/recipients";
import { findTemplate } from "../messaging/templates";
import { validate } from "../validate";

/**
 * What the review is checked against (docs/messaging-rules.md): the channel, what the message is
 * for, the template (whose category decides for WhatsApp) and a scheduled start. Read beside the
 * audience filters, from the same query string.
 */
const reviewRulesSchema = z.object({
  channel: z.enum(["sms", "whatsapp"]),
  purpose: z.enum(CAMPAIGN_PURPOSES),
  templateName: z.string().min(1).max(512).optional(),
  templateLanguage: z.string().min(1).max(20).optional(),
  scheduledAt: z.coerce.number().int().positive().max(8_640_000_000_000).optional(),
});

async function reviewRules(c: Context<AppEnv>, now: number): Promise<{ rules: SendRules; startAt: number } | null> {
  const query = c.req.query();
  if (query.channel === undefined && query.purpose === undefined) return null;
  const parsed = reviewRulesSchema.safeParse(query);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ApiError("validation_failed", `${issue.path.join(".")}: ${issue.message}`, { details: parsed.error.issues });
  }
  const r = parsed.data;
  // Which templates exist, and their categories, are billing data: naming one is refused without billingDetails.
  if (r.templateName !== undefined && !hasBillingDetails(c.var.user)) {
    throw new ApiError("forbidden", "Requires the billingDetails permission", { details: { reason: "billing_details", permission: "billingDetails" } });
  }
  let category = categoryOf(r.purpose);
  if (r.channel === "whatsapp" && r.templateName && r.templateLanguage) {
    const template = await findTemplate(c.var.db, { name: r.templateName, language: r.templateLanguage });
    if (template?.category === "MARKETING") category = "marketing";
  }
  // Quiet hours are judged on the rules' clock (src/worker/compliance/clock.ts), from the start time.
  const clock = complianceNow(c.env, now);
  const startAt = r.scheduledAt !== undefined && r.scheduledAt > now && r.scheduledAt <= now + MAX_SCHEDULE_AHEAD_MS ? r.scheduledAt + (clock - now) : clock;
  return { rules: { category, channel: r.channel, now }, startAt };
}

/** Each row of a review page, marked with why it would be left out, or until when it would wait. */
async function markRows<T extends { phone: string }>(c: Context<AppEnv>, rows: T[], now: number) {
  const review = await reviewRules(c, now);
  if (!review) return rows;
  const exclusions = await exclusionsOf(
    c.var.db,
    rows.map((r) => r.phone),
    review.rules,
  );
  return rows.map((r) => {
    const exclusion = exclusions.get(r.phone) ?? null;
    const at = !exclusion && review.rules.category === "marketing" ? nextAllowedAt(r.phone, review.startAt) : null;
    return { ...r, exclusion, deferredUntil: at !== null && at > review.startAt ? at : null };
  });
}

async function summarize(c: Context<AppEnv>, recipients: RecipientSource) {
  const now = Date.now();
  const review = await reviewRules(c, now);
  if (!review) throw new ApiError("validation_failed", "channel: Required; purpose: Required");
  const excluded = normalizePhones(c.req.queries("excludedPhones") ?? [], "excludedPhones");
  if (excluded.issues.length > 0) throw new ApiError("validation_failed", "excludedPhones: Not a US or Canada phone number", { details: excluded.issues });
  return reviewSummary(c.var.db, recipients, excluded.phones, review.rules, review.startAt);
}

/**
 * The messaging console's audiences: /api/admin/audience, /invitation-audience (each a review table
 * and its summary), a number's consent (/consent/:phone) and the regions to filter by (docs/api.md).
 * Administrators only.
 */
export const adminAudienceRoutes = new Hono<AppEnv>()
  .use(requireUser, requireAdmin)
  // Panel 1's review: filters, search, sort and paging all run in D1; the browser gets one page and the count.
  // Referral codes and Stripe ids are billing data: filtered, sorted, searched and shown with billingDetails only.
  .get("/audience", validate("query", driverAudienceSchema), async (c) => {
    assertMayListByReferral(c.var.user, c.req.valid("query"));
    const billing = hasBillingDetails(c.var.user);
    const now = Date.now();
    const page = await driverPage(c.var.db, c.req.valid("query"), { now, searchReferral: billing });
    return c.json({
      ...page,
      rows: await markRows(
        c,
        page.rows.map((user) => visibleRow(toDriverRow(user, now), billing)),
        now,
      ),
    });
  })
  // The review's account of exclusions and deferral for the whole audience (the page marks its rows).
  .get("/audience/review", validate("query", driverAudienceSchema), async (c) => {
    assertMayListByReferral(c.var.user, { referral: c.req.valid("query").referral });
    const { page: _p, pageSize: _s, ...filters } = c.req.valid("query");
    // Without billingDetails the search does not read referral codes, here as in the review table.
    return c.json(await summarize(c, { source: "drivers", filters: { ...filters, searchReferral: hasBillingDetails(c.var.user) } }));
  })
  // The invitees' referral codes are searched only with billingDetails, as in the drivers' review.
  .get("/invitation-audience", validate("query", invitationAudienceSchema), async (c) => {
    const page = await invitationPage(c.var.db, c.req.valid("query"), { searchReferral: hasBillingDetails(c.var.user) });
    return c.json({ ...page, rows: await markRows(c, page.rows, Date.now()) });
  })
  .get("/invitation-audience/review", validate("query", invitationAudienceSchema), async (c) => {
    const { page: _p, pageSize: _s, ...filters } = c.req.valid("query");
    return c.json(await summarize(c, { source: "invitations", filters: { ...filters, searchReferral: hasBillingDetails(c.var.user) } }));
  })
  // A number's consent and opt-out history, and what it allows now (the user page shows it).
  .get("/consent/:phone", validate("param", z.object({ phone: phoneSchema })), validate("query", pagingSchema), async (c) => {
    const { phone } = c.req.valid("param");
    const { page, pageSize } = c.req.valid("query");
    const [state, history] = await Promise.all([consentState(c.var.db, phone), consentHistory(c.var.db, phone, page, pageSize)]);
    return c.json({ state, history });
  })
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
  });
