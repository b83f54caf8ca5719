import { and, eq, sql } from "drizzle-orm";
import { enforceRateLimits, limitFor } from "../auth/rate-limit";
import { recordAudit } from "../cross-cutting/audit";
import { payments, serviceTimeLedger } from "../db/schema";
import { ApiError } from "../errors";
import { resumeCapture } from "../platform/capture";
import { PaymentsProviderError } from "../providers/payments/provider-error";
import type { PaymentRow } from "./checkout";
import { commissionReversalUpdate, settleCommissionOf } from "./commissions";
import type { BillingContext } from "./context";
import { takeBackFreeWeek } from "./invitations";
import { paymentView } from "./payment-lists";
import { paymentsProvider } from "./payments-provider";
import { DAY_MS, serviceTimeStatements } from "./service-time";

/**
 * The share of a payment's unused days that `cents` of its amount pays for: its days ran from (its
 * ledger row's expiration after − days) to that expiration, and what lies after now is unused.
 * Undefined when the payment never added days (no ledger row).
 */
export async function unusedShareMs(ctx: BillingContext, payment: PaymentRow, cents: number, now: number): Promise<number | undefined> {
  const paid = await ctx.db
    .select({ expirationAfter: serviceTimeLedger.expirationAfter })
    .from(serviceTimeLedger)
    .where(eq(serviceTimeLedger.sourceKey, `payment:${payment.id}`))
    .get();
  if (!paid) return undefined;
  if (paid.expirationAfter == null || payment.amountCents <= 0) return 0;
  const span = payment.days * DAY_MS;
  const end = paid.expirationAfter;
  const unused = Math.min(span, Math.max(0, end - Math.max(now, end - span)));
  return Math.floor((unused * cents) / payment.amountCents);
}

/** What the provider has taken back of a payment: its refunds, and a dispute unless it was won. */
const takenBackCents = (payment: Pick<PaymentRow, "refundedCents" | "disputedCents" | "disputeStatus">, refundedCents = payment.refundedCents) =>
  refundedCents + (payment.disputeStatus === "won" ? 0 : payment.disputedCents);

/**
 * Money returned (charge.refunded carries the charge's cumulative amount refunded). The refunded
 * share of the payment's unused days is removed (unusedShareMs). Each cumulative amount counts
 * once; an older, smaller amount arriving late changes nothing. The reseller's commission follows,
 * and a refund in full takes back the free week the payment earned its inviter.
 */
export async function settleRefund(ctx: BillingContext, input: { paymentIntentId: string; amountRefunded: number }) {
  const { db } = ctx;
  for (let attempt = 0; attempt < 5; attempt++) {
    const payment = await db.select().from(payments).where(eq(payments.paymentIntentId, input.paymentIntentId)).get();
    if (!payment) {
      ctx.log.warn("payments.refund_unknown_intent", { paymentIntentId: input.paymentIntentId });
      return;
    }
    const refunded = Math.min(input.amountRefunded, payment.amountCents);
    if (refunded <= payment.refundedCents) {
      // Already counted; what follows it is idempotent and finishes what a crashed delivery began.
      await afterMoneyTakenBack(ctx, payment);
      return;
    }
    const now = Date.now();
    const removeMs = await unusedShareMs(ctx, payment, refunded - payment.refundedCents, now);
    const time = serviceTimeStatements(
      db,
      {
        userId: payment.userId,
        deltaMs: -(removeMs ?? 0),
        kind: "refund",
        sourceKey: `refund:${payment.id}:${refunded}`,
        paymentId: payment.id,
        guard: sql`EXISTS (SELECT 1 FROM ${payments} WHERE ${payments.id} = ${payment.id} AND ${payments.refundedCents} = ${refunded})`,
      },
      now,
    );
    const [updated] = await db.batch([
      db
        .update(payments)
        .set({ status: "refunded", refundedCents: refunded, updatedAt: now })
        .where(and(eq(payments.id, payment.id), eq(payments.refundedCents, payment.refundedCents)))
        .returning({ id: payments.id }),
      ...(removeMs !== undefined ? time.statements : []),
      commissionReversalUpdate(db, payment.id, takenBackCents(payment, refunded), payment.amountCents, now),
    ]);
    if (updated.length === 0) continue; // another event moved the amount first: read again
    ctx.log.info("payments.refunded", { paymentId: payment.id, refundedCents: refunded, removedMs: removeMs ?? 0 });
    // The driver's engine reads the shorter expiry at once (and stops if it has passed).
    if (removeMs) ctx.waitUntil(resumeCapture(ctx.env, payment.userId));
    await afterMoneyTakenBack(ctx, { ...payment, status: "refunded", refundedCents: refunded });
    return;
  }
  throw new Error(`refund of ${input.paymentIntentId} kept racing`);
}

/**
 * After a refund or a dispute (each step idempotent, so a redelivered event finishes the work):
 * the reseller's commission transfer is reversed as far as the money went back, and when nothing
 * of the payment is kept, the free week it earned the friend's inviter is taken back.
 */
export async function afterMoneyTakenBack(ctx: BillingContext, payment: PaymentRow) {
  const disputed = payment.disputeStatus === "open" || payment.disputeStatus === "lost";
  if (disputed || payment.refundedCents >= payment.amountCents) {
    await takeBackFreeWeek(ctx, { inviteeId: payment.userId, paymentId: payment.id, cause: disputed ? "dispute" : "refund" });
  }
  ctx.waitUntil(settleCommissionOf(ctx, payment.id));
}

/**
 * A billing administrator refunds (part of) a payment. The provider does it; its charge.refunded
 * event settles our row. The key makes a repeated click one refund.
 */
export async function requestRefund(
  ctx: BillingContext,
  payment: PaymentRow,
  amountCents: number | undefined,
  actorId: number,
): Promise<{ refundId: string; amountCents: number }> {
  if ((payment.status !== "successful" && payment.status !== "refunded") || !payment.paymentIntentId) {
    throw new ApiError("unprocessable", "Only a successful payment can be refunded");
  }
  // A disputed charge cannot be refunded at the provider: the card network already holds the money.
  if (payment.disputeId && payment.disputeStatus !== "won") throw new ApiError("unprocessable", "This payment is disputed; the dispute returns the money");
  const remaining = payment.amountCents - payment.refundedCents;
  const amount = amountCents ?? remaining;
  if (remaining <= 0) throw new ApiError("unprocessable", "This payment is already fully refunded");
  if (amount < 1 || amount > remaining) throw new ApiError("unprocessable", `Refund between 1 and ${remaining} cents`, { details: { remaining } });
  const idempotencyKey = `refund-${payment.id}-${payment.refundedCents}-${amount}`;
  // The request is audited before it goes out: the money moves at the provider (its event settles
  // our row), so no refund can exist without its row; a request the provider refuses keeps its row.
  await recordAudit(ctx.db, { actorId, action: "billing.refund_requested", target: `payment:${payment.id}`, details: { amountCents: amount, idempotencyKey } });
  try {
    const refund = await paymentsProvider(ctx).refund({
      paymentIntentId: payment.paymentIntentId,
      amountCents: amount,
      paymentId: payment.id,
      idempotencyKey,
    });
    return { refundId: refund.id, amountCents: amount };
  } catch (err) {
    if (err instanceof PaymentsProviderError) {
      ctx.log.error("payments.refund_failed", { paymentId: payment.id, code: err.code, error: err.message });
      throw err.retryable
        ? new ApiError("unavailable", "The payment provider did not answer. Try again")
        : new ApiError("unprocessable", `The payment provider refused the refund: ${err.message}`, { details: { code: err.code } });
    }
    throw err;
  }
}

/**
 * The billing page's refund of a payment (404 for no such payment), limited per administrator:
 * the refund asked of the provider, and the payment as it now is (its event settles the row later).
 */
export async function refundPayment(ctx: BillingContext, actorId: number, paymentId: number, amountCents: number | undefined) {
  const row = await ctx.db.select().from(payments).where(eq(payments.id, paymentId)).get();
  if (!row) throw new ApiError("not_found", "No such payment");
  await enforceRateLimits(ctx.db, [limitFor("refundPerAdmin", String(actorId))]);
  const refund = await requestRefund(ctx, row, amountCents, actorId);
  return { refund, payment: await paymentView(ctx.db, paymentId) };
}
