import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { checkoutSchema } from "../../shared/billing";
import { requireUser, requireVerified } from "../auth/middleware";
import { enforceRateLimits, limitFor } from "../auth/rate-limit";
import { cancelCheckout, startCheckout } from "../billing/checkout";
import { paymentPage, paymentView } from "../billing/payment-lists";
import { clientOf } from "../billing/reseller-lists";
import { approvedReseller } from "../billing/resellers";
import { billingContext } from "../billing/run-context";
import { ledgerPage } from "../billing/service-time";
import { appUrl } from "../config";
import type { AppEnv } from "../context";
import { idParam, pagingSchema } from "../cross-cutting/paging";
import { payments, plans } from "../db/schema";
import { ApiError } from "../errors";
import { validate } from "../validate";

/** The driver's payments: /api/payments (docs/payments.md). */
export const paymentRoutes = new Hono<AppEnv>()
  .use(requireUser, requireVerified)

  // Pay: a plan for oneself, or (an approved reseller) for one of their clients. Answers the checkout URL to go to.
  .post("/checkout", validate("json", checkoutSchema), async (c) => {
    const body = c.req.valid("json");
    const payer = c.var.user;
    const { db } = c.var;
    let beneficiary = payer;
    if (body.forUserId !== undefined && body.forUserId !== payer.id) {
      const reseller = await approvedReseller(db, payer.id);
      const client = await clientOf(db, reseller, body.forUserId, payer.app);
      if (!client) throw new ApiError("not_found", "No such client");
      beneficiary = client;
    }
    const plan = await db
      .select()
      .from(plans)
      .where(and(eq(plans.id, body.planId), eq(plans.app, beneficiary.app), eq(plans.active, true)))
      .get();
    if (!plan) throw new ApiError("not_found", "No such plan", { details: { field: "planId" } });
    await enforceRateLimits(db, [limitFor("checkoutPerUser", String(payer.id))]);
    const checkout = await startCheckout(billingContext(c), {
      payer,
      beneficiary,
      plan,
      idempotencyKey: body.idempotencyKey,
      // Return links from APP_ORIGIN: a request's Host header is the caller's to choose.
      origin: appUrl(c.var.config, ""),
      returnPath: body.returnPath,
      returnQuery: body.returnQuery,
    });
    return c.json(checkout, 201);
  })

  // The driver's own payments (days of service, refunds), newest first, with totals.
  .get("/", validate("query", pagingSchema), async (c) => {
    const { page, pageSize } = c.req.valid("query");
    return c.json(await paymentPage(c.var.db, { page, pageSize, userId: c.var.user.id }));
  })

  // Every change to the driver's service time, newest first.
  .get("/service-time", validate("query", pagingSchema), async (c) => {
    const { page, pageSize } = c.req.valid("query");
    return c.json(await ledgerPage(c.var.db, c.var.user.id, page, pageSize));
  })

  // One payment, for the driver it is for or whoever paid it; its state comes from our row, never the return URL.
  .get("/:id{[0-9]+}", validate("param", idParam), async (c) => {
    const payment = await paymentView(c.var.db, c.req.valid("param").id);
    const me = c.var.user.id;
    if (!payment || (payment.userId !== me && payment.payerId !== me)) throw new ApiError("not_found", "No such payment");
    return c.json({ payment });
  })

  // Back from the checkout without paying: the session is ended and the payment marked failed.
  .post("/:id{[0-9]+}/cancel", validate("param", idParam), async (c) => {
    const { db } = c.var;
    const row = await db
      .select()
      .from(payments)
      .where(eq(payments.id, c.req.valid("param").id))
      .get();
    if (!row || row.payerId !== c.var.user.id) throw new ApiError("not_found", "No such payment");
    await cancelCheckout(billingContext(c), row);
    // Payments are never deleted while their driver exists (and the caller's session proves that).
    return c.json({ payment: (await paymentView(db, row.id))! });
  });
