import { Hono } from "hono";
import { z } from "zod";
import { resellerApplySchema } from "../../shared/billing";
import { requireUser, requireVerified } from "../auth/middleware";
import { clientPage, commissionPage, resellerSummary } from "../billing/reseller-lists";
import { refreshOnboarding, startOnboarding } from "../billing/reseller-onboarding";
import { applyAsReseller, approvedReseller } from "../billing/resellers";
import { billingContext } from "../billing/run-context";
import { appUrl } from "../config";
import type { AppEnv } from "../context";
import { pagingSchema } from "../cross-cutting/paging";
import { validate } from "../validate";

const WEEK_MS = 7 * 86_400_000;

const clientQuery = pagingSchema.extend({
  q: z.string().trim().max(100).optional(),
  /** The start of "this week" in the reseller's time zone (epoch ms), within the last 8 days; default: 7 days ago. */
  weekStart: z.coerce
    .number()
    .int()
    .refine((at) => at > Date.now() - WEEK_MS - 86_400_000 && at <= Date.now(), "weekStart must be within the last 8 days")
    .optional(),
});

/** The reseller program for drivers: /api/reseller (docs/payments.md). */
export const resellerRoutes = new Hono<AppEnv>()
  .use(requireUser, requireVerified)
  .get("/", async (c) => c.json({ reseller: await resellerSummary(c.var.db, c.var.user) }))
  .post("/apply", validate("json", resellerApplySchema), async (c) => {
    await applyAsReseller(billingContext(c), c.var.user, c.req.valid("json").message || null);
    return c.json({ reseller: await resellerSummary(c.var.db, c.var.user) }, 201);
  })
  // Payout setup: a Connect Express onboarding link (the local provider's own page in development).
  .post("/onboarding", async (c) => c.json(await startOnboarding(billingContext(c), c.var.user, appUrl(c.var.config, ""))))
  // Back from onboarding: read the account's state now rather than wait for account.updated.
  .post("/onboarding/refresh", async (c) => c.json({ onboarding: await refreshOnboarding(billingContext(c), c.var.user) }))
  .get("/clients", validate("query", clientQuery), async (c) => {
    const reseller = await approvedReseller(c.var.db, c.var.user.id);
    const { page, pageSize, q, weekStart } = c.req.valid("query");
    return c.json(
      await clientPage(c.var.db, { referralCode: reseller.referralCode, app: c.var.user.app, page, pageSize, q, weekStart: weekStart ?? Date.now() - WEEK_MS }),
    );
  })
  .get("/commissions", validate("query", pagingSchema), async (c) => {
    await approvedReseller(c.var.db, c.var.user.id);
    const { page, pageSize } = c.req.valid("query");
    return c.json(await commissionPage(c.var.db, { resellerId: c.var.user.id, page, pageSize }));
  });
