import { Hono } from "hono";
import { z } from "zod";
import { appSchema } from "../../shared/auth";
import { planCreateSchema, planUpdateSchema, refundSchema, resellerApprovalSchema, serviceTimeAdjustmentSchema } from "../../shared/billing";
import { exportPayments } from "../admin/payments-export";
import { adjustUserServiceTime, serviceTimeLedger } from "../admin/service-time";
import { requireAdmin, requireOwner, requireRoleProperty, requireUser } from "../auth/middleware";
import { paymentPage } from "../billing/payment-lists";
import { createPlan, planList, updatePlan } from "../billing/plans";
import { refundPayment } from "../billing/refunds";
import { commissionPage, resellerPage } from "../billing/reseller-lists";
import { approveReseller, defaultCommissionBps, endReseller } from "../billing/resellers";
import { billingContext } from "../billing/run-context";
import type { AppEnv } from "../context";
import { csvHeaders } from "../cross-cutting/csv";
import { idParam, pagingSchema } from "../cross-cutting/paging";
import { resumeCapture } from "../platform/capture";
import { validate } from "../validate";

const epochMs = z.coerce.number().int().min(0).max(8_640_000_000_000_000);

const paymentQuery = pagingSchema.extend({
  status: z.enum(["processing", "successful", "failed", "refunded"]).optional(),
  app: appSchema.optional(),
  from: epochMs.optional(),
  to: epochMs.optional(),
  userId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  q: z.string().trim().min(1).max(100).optional(),
});

/**
 * The admin billing page's API: /api/admin/billing/* (docs/payments.md). Administrators whose role
 * has billingDetails; editing plans is for the owner.
 */
export const adminBillingRoutes = new Hono<AppEnv>()
  .use(requireUser, requireAdmin, requireRoleProperty("billingDetails"))

  .get("/payments", validate("query", paymentQuery), async (c) => c.json(await paymentPage(c.var.db, c.req.valid("query"))))
  // The filtered payments as CSV, streamed (cross-cutting/csv.ts defuses formula cells); audited like the users export.
  .get("/payments/export.csv", validate("query", paymentQuery.omit({ page: true, pageSize: true, userId: true })), async (c) => {
    return c.body(await exportPayments(c.var.db, c.var.user, c.req.valid("query")), 200, csvHeaders("payments.csv"));
  })

  // The provider refunds; its charge.refunded event settles our row (status, days removed, commission reversed).
  .post("/payments/:id/refund", validate("param", idParam), validate("json", refundSchema), async (c) => {
    const { id } = c.req.valid("param");
    return c.json(await refundPayment(billingContext(c), c.var.user.id, id, c.req.valid("json").amountCents), 202);
  })

  .get("/plans", validate("query", z.object({ app: appSchema.optional() })), async (c) => c.json({ Items: await planList(c.var.db, c.req.valid("query").app) }))
  // Each change and its audit row are one transaction.
  .post("/plans", requireOwner, validate("json", planCreateSchema), async (c) =>
    c.json({ plan: await createPlan(c.var.db, c.var.user.id, c.req.valid("json")) }, 201),
  )
  // Payments keep their own amount and days, so editing a plan never changes what was sold.
  .patch("/plans/:id", requireOwner, validate("param", idParam), validate("json", planUpdateSchema), async (c) =>
    c.json({ plan: await updatePlan(c.var.db, c.var.user.id, c.req.valid("param").id, c.req.valid("json")) }),
  )

  .get(
    "/commissions",
    validate(
      "query",
      pagingSchema.extend({
        status: z.enum(["pending", "paid", "reversed"]).optional(),
        resellerId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
      }),
    ),
    async (c) => c.json(await commissionPage(c.var.db, c.req.valid("query"))),
  )

  // The default rate comes along: above it, an approval is the owner's (approveReseller).
  .get("/resellers", validate("query", pagingSchema.extend({ status: z.enum(["applied", "approved", "rejected", "revoked"]).optional() })), async (c) =>
    c.json({ ...(await resellerPage(c.var.db, c.req.valid("query"))), defaultCommissionPercent: defaultCommissionBps(c.env) / 100 }),
  )
  .post("/resellers/:id/approve", validate("param", idParam), validate("json", resellerApprovalSchema), async (c) => {
    const { id } = c.req.valid("param");
    const reseller = await approveReseller(billingContext(c), c.var.user, id, c.req.valid("json"));
    return c.json({ reseller });
  })
  .post("/resellers/:id/reject", validate("param", idParam), async (c) => {
    const { id } = c.req.valid("param");
    const reseller = await endReseller(billingContext(c), c.var.user, id, "rejected");
    return c.json({ reseller });
  })
  .post("/resellers/:id/revoke", validate("param", idParam), async (c) => {
    const { id } = c.req.valid("param");
    const reseller = await endReseller(billingContext(c), c.var.user, id, "revoked");
    return c.json({ reseller });
  })

  // A driver's service-time ledger, and manual extensions or reductions through it.
  .get("/users/:id/service-time", validate("param", idParam), validate("query", pagingSchema), async (c) => {
    const { page, pageSize } = c.req.valid("query");
    return c.json(await serviceTimeLedger(c.var.db, c.req.valid("param").id, page, pageSize));
  })
  .post("/users/:id/service-time", validate("param", idParam), validate("json", serviceTimeAdjustmentSchema), async (c) => {
    const { id } = c.req.valid("param");
    const entry = await adjustUserServiceTime(c.var.db, c.var.user, id, c.req.valid("json"));
    c.executionCtx.waitUntil(resumeCapture(c.env, id));
    return c.json({ entry }, 201);
  });
