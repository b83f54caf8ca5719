import { eq } from "drizzle-orm";
import type { z } from "zod";
import type { checkoutSchema } from "../../shared/billing";
import { enforceRateLimits, limitFor } from "../auth/rate-limit";
import type { SessionUser } from "../context";
import type { Db } from "../db/client";
import { payments } from "../db/schema";
import { ApiError } from "../errors";
import { cancelCheckout, startCheckout } from "./checkout";
import type { BillingContext } from "./context";
import { paymentView } from "./payment-lists";
import { activePlanFor } from "./plans";
import { clientOf } from "./reseller-lists";
import { approvedReseller } from "./resellers";

/**
 * Pay (docs/payments.md): a plan for oneself, or (an approved reseller) for one of their clients,
 * 404 for anyone else; the plan must be active and of the beneficiary's app. Limited per payer.
 * Return links are built on `origin` (APP_ORIGIN: a request's Host header is the caller's to choose).
 */
export async function checkoutFor(ctx: BillingContext, payer: SessionUser, body: z.output<typeof checkoutSchema>, origin: string) {
  const { db } = ctx;
  let beneficiary = payer;
  if (body.forUserId !== undefined && body.forUserId !== payer.id) {
    const reseller = await approvedReseller(db, payer.id);
    const client = await clientOf(db, reseller, body.forUserId, payer.app);
    if (!client) throw new ApiError("not_found", "No such client");
    beneficiary = client;
  }
  const plan = await activePlanFor(db, body.planId, beneficiary.app);
  await enforceRateLimits(db, [limitFor("checkoutPerUser", String(payer.id))]);
  return startCheckout(ctx, {
    payer,
    beneficiary,
    plan,
    idempotencyKey: body.idempotencyKey,
    origin,
    returnPath: body.returnPath,
    returnQuery: body.returnQuery,
  });
}

/** Back from the checkout without paying: the payer's own payment (404 for any other) has its session ended and is marked failed. */
export async function cancelOwnCheckout(ctx: BillingContext, payerId: number, paymentId: number) {
  const row = await ctx.db.select().from(payments).where(eq(payments.id, paymentId)).get();
  if (!row || row.payerId !== payerId) throw new ApiError("not_found", "No such payment");
  await cancelCheckout(ctx, row);
  // Payments are never deleted while their driver exists (and the caller's session proves that).
  return (await paymentView(ctx.db, row.id))!;
}

/** One payment, for the driver it is for or whoever paid it (404 for anyone else); its state is our row's. */
export async function ownPayment(db: Db, userId: number, paymentId: number) {
  const payment = await paymentView(db, paymentId);
  if (!payment || (payment.userId !== userId && payment.payerId !== userId)) throw new ApiError("not_found", "No such payment");
  return payment;
}
