import { type Context, Hono } from "hono";
import { z } from "zod";
import { driverAudienceSchema, invitationAudienceSchema } from "../../shared/audience";
import { phoneSchema } from "../../shared/auth";
import { assertMayListByReferral, hasBillingDetails, visibleRow } from "../admin/billing-fields";
import { requireAdmin, requireUser } from "../auth/middleware";
import { consentOf } from "../compliance/consent";
import type { AppEnv } from "../context";
import { pagingSchema } from "../cross-cutting/paging";
import { ApiError } from "../errors";
import { driverPage, invitationPage, toDriverRow } from "../messaging/audience";
import { audienceRegions } from "../messaging/audience-regions";
import { audienceReview, markRows, type ReviewQuery, reviewQueryOf } from "../messaging/audience-review";
import { validate } from "../validate";

/**
 * The review's rules in the query string, beside the audience filters (messaging/audience-review.ts).
 * Which templates exist, and their categories, are billing data: naming one is refused without billingDetails.
 */
function reviewQuery(c: Context<AppEnv>): ReviewQuery | null {
  const query = reviewQueryOf(c.req.query());
  if (query?.templateName !== undefined && !hasBillingDetails(c.var.user)) {
    throw new ApiError("forbidden", "Requires the billingDetails permission", { details: { reason: "billing_details", permission: "billingDetails" } });
  }
  return query;
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
        c.var.db,
        c.env,
        page.rows.map((user) => visibleRow(toDriverRow(user, now), billing)),
        reviewQuery(c),
        now,
      ),
    });
  })
  // The review's account of exclusions and deferral for the whole audience (the page marks its rows).
  .get("/audience/review", validate("query", driverAudienceSchema), async (c) => {
    assertMayListByReferral(c.var.user, { referral: c.req.valid("query").referral });
    const { page: _p, pageSize: _s, ...filters } = c.req.valid("query");
    // Without billingDetails the search does not read referral codes, here as in the review table.
    return c.json(
      await audienceReview(
        c.var.db,
        c.env,
        { source: "drivers", filters: { ...filters, searchReferral: hasBillingDetails(c.var.user) } },
        reviewQuery(c),
        c.req.queries("excludedPhones") ?? [],
      ),
    );
  })
  // The invitees' referral codes are searched only with billingDetails, as in the drivers' review.
  .get("/invitation-audience", validate("query", invitationAudienceSchema), async (c) => {
    const page = await invitationPage(c.var.db, c.req.valid("query"), { searchReferral: hasBillingDetails(c.var.user) });
    return c.json({ ...page, rows: await markRows(c.var.db, c.env, page.rows, reviewQuery(c), Date.now()) });
  })
  .get("/invitation-audience/review", validate("query", invitationAudienceSchema), async (c) => {
    const { page: _p, pageSize: _s, ...filters } = c.req.valid("query");
    return c.json(
      await audienceReview(
        c.var.db,
        c.env,
        { source: "invitations", filters: { ...filters, searchReferral: hasBillingDetails(c.var.user) } },
        reviewQuery(c),
        c.req.queries("excludedPhones") ?? [],
      ),
    );
  })
  // A number's consent and opt-out history, and what it allows now (the user page shows it).
  .get("/consent/:phone", validate("param", z.object({ phone: phoneSchema })), validate("query", pagingSchema), async (c) => {
    const { phone } = c.req.valid("param");
    const { page, pageSize } = c.req.valid("query");
    return c.json(await consentOf(c.var.db, phone, page, pageSize));
  })
  .get("/regions", validate("query", z.object({ app: z.enum(["flex", "spark"]).default("flex") })), async (c) => {
    const { app } = c.req.valid("query");
    return c.json({ Items: await audienceRegions(c.var.db, app) });
  });
