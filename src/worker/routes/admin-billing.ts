import { asc, eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { appSchema } from "../../shared/auth";
import { planCreateSchema, planUpdateSchema, refundSchema, resellerApprovalSchema, serviceTimeAdjustmentSchema } from "../../shared/billing";
import { PAYMENT_CSV_HEADER, paymentCsvChunks } from "../admin/payments-export";
import { assertMayActOn } from "../admin/user-detail";
import { requireAdmin, requireOwner, requireRoleProperty, requireUser } from "../auth/middleware";
import { enforceRateLimits, limitFor } from "../auth/rate-limit";
import { paymentPage, paymentView } from "../billing/payment-lists";
import { requestRefund } from "../billing/refunds";
import { commissionPage, resellerPage } from "../billing/reseller-lists";
import { approveReseller, defaultCommissionBps, endReseller } from "../billing/resellers";
import { billingContext } from "../billing/run-context";
import { adjustServiceTime, ledgerPage } from "../billing/service-time";
import type { AppEnv } from "../context";
import { auditInsertWhen, changedAbove, recordAudit } from "../cross-cutting/audit";
import { csvHeaders, csvStream } from "../cross-cutting/csv";
import { idParam, pagingSchema } from "../cross-cutting/paging";
import { payments, plans, users } from "../db/schema";
import { ApiError } from "../errors";
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

async function userExists(c: { var: { db: AppEnv["Variables"]["db"] } }, id: number) {
  const user = await c.var.db.select({ id: users.id, isAdmin: users.isAdmin }).from(users).where(eq(users.id, id)).get();
  if (!user) throw new ApiError("not_found", "No such user");
  return user;
}

/**
 * The admin billing page's API: /api/admin/billing/* (docs/payments.md). Administrators whose role
 * has billingDetails; editing plans is for the owner.
 */
export const adminBillingRoutes = new Hono<AppEnv>()
  .use(requireUser, requireAdmin, requireRoleProperty("billingDetails"))

  .get("/payments", validate("query", paymentQuery), async (c) => c.json(await paymentPage(c.var.db, c.req.valid("query"))))
  // The filtered payments as CSV, streamed (src/worker/csv.ts defuses formula cells); audited like the users export.
  .get("/payments/export.csv", validate("query", paymentQuery.omit({ page: true, pageSize: true, userId: true })), async (c) => {
    const filter = c.req.valid("query");
    await recordAudit(c.var.db, { actorId: c.var.user.id, action: "admin.payments_exported", details: { filters: filter } });
    return c.body(csvStream(PAYMENT_CSV_HEADER, paymentCsvChunks(c.var.db, filter)), 200, csvHeaders("payments.csv"));
  })

  // The provider refunds; its charge.refunded event settles our row (status, days removed, commission reversed).
  .post("/payments/:id/refund", validate("param", idParam), validate("json", refundSchema), async (c) => {
    const { id } = c.req.valid("param");
    const row = await c.var.db.select().from(payments).where(eq(payments.id, id)).get();
    if (!row) throw new ApiError("not_found", "No such payment");
    await enforceRateLimits(c.var.db, [limitFor("refundPerAdmin", String(c.var.user.id))]);
    const refund = await requestRefund(billingContext(c), row, c.req.valid("json").amountCents, c.var.user.id);
    return c.json({ refund, payment: await paymentView(c.var.db, id) }, 202);
  })

  .get("/plans", validate("query", z.object({ app: appSchema.optional() })), async (c) => {
    const { app } = c.req.valid("query");
    const rows = await c.var.db
      .select()
      .from(plans)
      .where(app ? eq(plans.app, app) : undefined)
      .orderBy(asc(plans.app), asc(plans.sortOrder), asc(plans.days), asc(plans.id))
      .limit(200);
    return c.json({ Items: rows });
  })
  // Each change and its audit row are one transaction.
  .post("/plans", requireOwner, validate("json", planCreateSchema), async (c) => {
    const { db } = c.var;
    const input = c.req.valid("json");
    const now = Date.now();
    const [[plan]] = await db.batch([
      db
        .insert(plans)
        .values({ ...input, updatedAt: now })
        .returning(),
      auditInsertWhen(
        db,
        { actorId: c.var.user.id, action: "billing.plan_created", target: sql`'plan:' || last_insert_rowid()`, details: input },
        changedAbove,
        now,
      ),
    ]);
    return c.json({ plan: plan! }, 201);
  })
  // Payments keep their own amount and days, so editing a plan never changes what was sold.
  .patch("/plans/:id", requireOwner, validate("param", idParam), validate("json", planUpdateSchema), async (c) => {
    const { id } = c.req.valid("param");
    const { db } = c.var;
    const now = Date.now();
    const [[plan]] = await db.batch([
      db
        .update(plans)
        .set({ ...c.req.valid("json"), updatedAt: now })
        .where(eq(plans.id, id))
        .returning(),
      auditInsertWhen(db, { actorId: c.var.user.id, action: "billing.plan_updated", target: `plan:${id}`, details: c.req.valid("json") }, changedAbove, now),
    ]);
    if (!plan) throw new ApiError("not_found", "No such plan");
    return c.json({ plan });
  })

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
    const { id } = c.req.valid("param");
    await userExists(c, id);
    const { page, pageSize } = c.req.valid("query");
    return c.json(await ledgerPage(c.var.db, id, page, pageSize));
  })
  .post("/users/:id/service-time", validate("param", idParam), validate("json", serviceTimeAdjustmentSchema), async (c) => {
    const { id } = c.req.valid("param");
    // An administrator's account is the owner's to change, its service time included.
    assertMayActOn(c.var.user, await userExists(c, id));
    const body = c.req.valid("json");
    // The ledger row, the new expiration and the audit row are one transaction.
    const result = await adjustServiceTime(c.var.db, { userId: id, days: body.days, actorId: c.var.user.id, reason: body.reason });
    c.executionCtx.waitUntil(resumeCapture(c.env, id));
    return c.json({ entry: result.entry }, 201);
  });
