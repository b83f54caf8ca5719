import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { recordAudit } from "../auth/audit";
import type { SessionUser } from "../auth/middleware";
import { payments, type plans, serviceTimeLedger } from "../db/schema";
import { ApiError } from "../errors";
import { resumeCapture } from "../platform/capture";
import { createPaymentsProvider, type PaymentsProvider, PaymentsProviderError } from "../providers/payments/provider";
import { commissionInsert, commissionReversalUpdate, settleCommissionOf } from "./commissions";
import type { BillingContext } from "./context";
import { grantFreeWeek, takeBackFreeWeek } from "./invitations";
import { DAY_MS, serviceTimeStatements } from "./service-time";

export type PaymentRow = typeof payments.$inferSelect;
export type PlanRow = typeof plans.$inferSelect;

/** How long a checkout session accepts payment (Stripe allows 30 minutes to 24 hours). */
const CHECKOUT_TTL_MS = 60 * 60_000;

export function paymentsProvider(ctx: BillingContext): PaymentsProvider {
  return createPaymentsProvider(ctx.env, { log: ctx.log, waitUntil: ctx.waitUntil });
}

/** Where the provider sends the driver back: the page they paid from, its query string kept, plus our payment id. */
export function returnUrl(origin: string, path: string, query: string, paymentId: number, canceled: boolean): string {
  const params = new URLSearchParams(query);
  params.delete("payment");
  params.delete("canceled");
  params.set("payment", String(paymentId));
  if (canceled) params.set("canceled", "1");
  return `${origin}${path}?${params.toString()}`;
}

export type StartCheckout = {
  payer: SessionUser;
  beneficiary: Pick<SessionUser, "id" | "app" | "name" | "email">;
  plan: PlanRow;
  idempotencyKey: string;
  origin: string;
  returnPath: "/payment" | "/flex/reseller";
  returnQuery: string;
};

/**
 * Pay: the payment row first (processing), then the provider's checkout session for it. The same
 * idempotency key from the same payer answers the same payment and session (a double click, a
 * retried request), because the provider call is keyed by our payment id.
 */
export async function startCheckout(ctx: BillingContext, input: StartCheckout): Promise<{ paymentId: number; url: string }> {
  const { db } = ctx;
  const provider = paymentsProvider(ctx);
  const now = Date.now();
  const inserted = await db
    .insert(payments)
    .values({
      userId: input.beneficiary.id,
      payerId: input.payer.id,
      planId: input.plan.id,
      amountCents: input.plan.priceCents,
      days: input.plan.days,
      status: "processing",
      provider: provider.name,
      idempotencyKey: input.idempotencyKey,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing({ target: [payments.payerId, payments.idempotencyKey] })
    .returning()
    .get();
  const payment =
    inserted ??
    (await db
      .select()
      .from(payments)
      .where(and(eq(payments.payerId, input.payer.id), eq(payments.idempotencyKey, input.idempotencyKey)))
      .get());
  if (!payment) throw new Error("payment row vanished");
  if (payment.userId !== input.beneficiary.id || payment.planId !== input.plan.id) {
    throw new ApiError("conflict", "This idempotency key was used for another checkout", { details: { paymentId: payment.id } });
  }
  if (payment.status !== "processing")
    throw new ApiError("conflict", "This checkout has already ended", { details: { paymentId: payment.id, status: payment.status } });

  try {
    const session = await provider.createCheckoutSession({
      paymentId: payment.id,
      userId: payment.userId,
      payerId: input.payer.id,
      amountCents: payment.amountCents,
      currency: "usd",
      productName: `Blockpilot ${input.beneficiary.app === "spark" ? "Spark" : "Flex"}: ${payment.days} days`,
      description: `${payment.days} days of service for ${input.beneficiary.name}`,
      customerEmail: input.payer.email,
      successUrl: returnUrl(input.origin, input.returnPath, input.returnQuery, payment.id, false),
      cancelUrl: returnUrl(input.origin, input.returnPath, input.returnQuery, payment.id, true),
      // From the row, not the clock: a replayed request sends the provider identical parameters.
      expiresAt: payment.createdAt + CHECKOUT_TTL_MS,
      transferGroup: `payment_${payment.id}`,
    });
    await db.update(payments).set({ providerRef: session.id, updatedAt: Date.now() }).where(eq(payments.id, payment.id));
    return { paymentId: payment.id, url: session.url };
  } catch (err) {
    ctx.log.error("payments.checkout_failed", { paymentId: payment.id, error: err instanceof Error ? err.message : String(err) });
    if (!(err instanceof PaymentsProviderError)) throw err;
    await db
      .update(payments)
      .set({ status: "failed", failureCode: "checkout_unavailable", settledAt: Date.now(), updatedAt: Date.now() })
      .where(and(eq(payments.id, payment.id), eq(payments.status, "processing")));
    throw new ApiError("unavailable", "Couldn't start payment process. Try again in a moment");
  }
}

/**
 * The driver came back without paying: end the session so it cannot be paid later, and record
 * the payment as failed. When the provider refuses because the session already completed (paid a
 * moment ago), nothing is marked: its event settles the payment.
 */
export async function cancelCheckout(ctx: BillingContext, payment: PaymentRow): Promise<void> {
  if (payment.status !== "processing" || !payment.providerRef) return;
  // The reason first: the provider's expired event (sent at once by the local provider) then keeps it.
  await recordDecline(ctx, { paymentId: payment.id, code: "canceled" });
  try {
    await paymentsProvider(ctx).expireCheckoutSession(payment.providerRef);
  } catch (err) {
    if (err instanceof PaymentsProviderError && !err.retryable) {
      ctx.log.info("payments.cancel_refused", { paymentId: payment.id, code: err.code });
      return;
    }
    throw err;
  }
  await settleFailed(ctx, { paymentId: payment.id, sessionId: payment.providerRef, code: "canceled" });
}

async function paymentById(ctx: BillingContext, id: number): Promise<PaymentRow | undefined> {
  return ctx.db.select().from(payments).where(eq(payments.id, id)).get();
}

/**
 * Money received: the payment becomes successful and its days are added, in one transaction, once
 * (the ledger's `payment:<id>` key); the reseller's commission is recorded with it. Then, each
 * time (each step is idempotent, so a redelivered event finishes what a crashed one began): the
 * inviter's free week and the commission transfer.
 */
export async function settlePaid(ctx: BillingContext, input: { paymentId: number; sessionId: string; paymentIntentId: string | null }) {
  const payment = await paymentById(ctx, input.paymentId);
  if (!payment || payment.providerRef !== input.sessionId) {
    ctx.log.error("payments.unknown_session", { paymentId: input.paymentId, sessionId: input.sessionId });
    return;
  }
  const { db } = ctx;
  const now = Date.now();
  const time = serviceTimeStatements(
    db,
    {
      userId: payment.userId,
      deltaMs: payment.days * DAY_MS,
      kind: "payment",
      sourceKey: `payment:${payment.id}`,
      paymentId: payment.id,
      guard: sql`EXISTS (SELECT 1 FROM ${payments} WHERE ${payments.id} = ${payment.id} AND ${payments.status} = 'successful')`,
    },
    now,
  );
  const [, , , ledger] = await db.batch([
    db
      .update(payments)
      .set({ status: "successful", paymentIntentId: input.paymentIntentId ?? payment.paymentIntentId, failureCode: null, settledAt: now, updatedAt: now })
      .where(and(eq(payments.id, payment.id), inArray(payments.status, ["processing", "failed"]))),
    ...time.statements,
    commissionInsert(db, payment.id, now),
  ]);
  const result = time.resultOf(ledger);
  if (result.applied) {
    ctx.log.info("payments.successful", { paymentId: payment.id, userId: payment.userId, days: payment.days });
    // A capture engine that stopped for expiry starts again; a running one reads the new expiry.
    ctx.waitUntil(resumeCapture(ctx.env, payment.userId));
  }
  if (!result.entry) return;
  await grantFreeWeek(ctx, { inviteeId: payment.userId, paymentId: payment.id });
  ctx.waitUntil(settleCommissionOf(ctx, payment.id));
}

/**
 * The session ended unpaid (expired, canceled, an asynchronous payment failed). A paid payment
 * never goes back. An expiry keeps the reason already known (the driver went back, a card was
 * declined), which says more than "expired".
 */
export async function settleFailed(ctx: BillingContext, input: { paymentId: number; sessionId: string; code: string }) {
  const now = Date.now();
  const failureCode = input.code === "expired" ? sql`coalesce(${payments.failureCode}, ${input.code})` : sql`${input.code}`;
  await ctx.db
    .update(payments)
    .set({ status: "failed", failureCode, settledAt: now, updatedAt: now })
    .where(and(eq(payments.id, input.paymentId), eq(payments.providerRef, input.sessionId), eq(payments.status, "processing")));
}

/** A card was declined on the checkout page: the session stays open (the driver may try another card); the reason is kept. */
export async function recordDecline(ctx: BillingContext, input: { paymentId: number; code: string }) {
  await ctx.db
    .update(payments)
    .set({ failureCode: input.code, updatedAt: Date.now() })
    .where(and(eq(payments.id, input.paymentId), eq(payments.status, "processing")));
}

/**
 * The share of a payment's unused days that `cents` of its amount pays for: its days ran from (its
 * ledger row's expiration after − days) to that expiration, and what lies after now is unused.
 * Undefined when the payment never added days (no ledger row).
 */
async function unusedShareMs(ctx: BillingContext, payment: PaymentRow, cents: number, now: number): Promise<number | undefined> {
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
async function afterMoneyTakenBack(ctx: BillingContext, payment: PaymentRow) {
  const disputed = payment.disputeStatus === "open" || payment.disputeStatus === "lost";
  if (disputed || payment.refundedCents >= payment.amountCents) {
    await takeBackFreeWeek(ctx, { inviteeId: payment.userId, paymentId: payment.id, cause: disputed ? "dispute" : "refund" });
  }
  ctx.waitUntil(settleCommissionOf(ctx, payment.id));
}

/**
 * A cardholder disputed the charge (charge.dispute.created): the card network takes the disputed
 * amount back at once, so it counts like a refund of that amount: the share of the unused days it
 * paid for is removed (ledger kind `dispute`, once per dispute id), the reseller's commission is
 * reversed in the same transaction, and the inviter's free week is taken back. A charge has at
 * most one dispute.
 */
export async function settleDisputeOpened(ctx: BillingContext, input: { paymentIntentId: string; disputeId: string; amount: number }) {
  const { db } = ctx;
  const payment = await db.select().from(payments).where(eq(payments.paymentIntentId, input.paymentIntentId)).get();
  if (!payment) {
    ctx.log.warn("payments.dispute_unknown_intent", { paymentIntentId: input.paymentIntentId, disputeId: input.disputeId });
    return;
  }
  if (payment.disputeId !== null) {
    if (payment.disputeId !== input.disputeId)
      ctx.log.error("payments.second_dispute", { paymentId: payment.id, disputeId: input.disputeId, recorded: payment.disputeId });
    else await afterMoneyTakenBack(ctx, payment);
    return;
  }
  const disputed = Math.max(0, Math.min(input.amount, payment.amountCents - payment.refundedCents));
  const now = Date.now();
  const removeMs = await unusedShareMs(ctx, payment, disputed, now);
  const time = serviceTimeStatements(
    db,
    {
      userId: payment.userId,
      deltaMs: -(removeMs ?? 0),
      kind: "dispute",
      sourceKey: `dispute:${input.disputeId}`,
      paymentId: payment.id,
      guard: sql`EXISTS (SELECT 1 FROM ${payments} WHERE ${payments.id} = ${payment.id} AND ${payments.disputeId} = ${input.disputeId})`,
    },
    now,
  );
  const [updated] = await db.batch([
    db
      .update(payments)
      .set({ disputeId: input.disputeId, disputeStatus: "open", disputedCents: disputed, updatedAt: now })
      .where(and(eq(payments.id, payment.id), isNull(payments.disputeId)))
      .returning(),
    ...(removeMs !== undefined ? time.statements : []),
    commissionReversalUpdate(db, payment.id, payment.refundedCents + disputed, payment.amountCents, now),
  ]);
  const recorded = updated[0] ?? (await db.select().from(payments).where(eq(payments.id, payment.id)).get())!;
  if (updated.length > 0) {
    ctx.log.info("payments.disputed", { paymentId: payment.id, disputeId: input.disputeId, disputedCents: disputed, removedMs: removeMs ?? 0 });
    if (removeMs) ctx.waitUntil(resumeCapture(ctx.env, payment.userId));
  }
  if (recorded.disputeId === input.disputeId) await afterMoneyTakenBack(ctx, recorded);
}

/**
 * The dispute ended (charge.dispute.closed). Won (or an inquiry closed without a chargeback,
 * `warning_closed`): the money came back, and so do the days the dispute took (ledger kind
 * `dispute_won`, what the dispute row really removed, once). The commission reversal and the free
 * week's reversal stand (docs/payments.md). Lost: the money stays gone; nothing more changes.
 */
export async function settleDisputeClosed(ctx: BillingContext, input: { paymentIntentId: string; disputeId: string; status: string }) {
  const { db } = ctx;
  const payment = await db.select().from(payments).where(eq(payments.paymentIntentId, input.paymentIntentId)).get();
  if (!payment || payment.disputeId !== input.disputeId) {
    // A dispute we never saw open: a closed event arriving first is retried by the provider until the opening one is in.
    if (payment && payment.disputeId === null) throw new Error(`dispute ${input.disputeId} closed before it was recorded`);
    ctx.log.warn("payments.dispute_unknown", { paymentIntentId: input.paymentIntentId, disputeId: input.disputeId });
    return;
  }
  const won = input.status === "won" || input.status === "warning_closed";
  const now = Date.now();
  if (!won) {
    await db
      .update(payments)
      .set({ disputeStatus: "lost", updatedAt: now })
      .where(and(eq(payments.id, payment.id), eq(payments.disputeStatus, "open")));
    ctx.log.info("payments.dispute_lost", { paymentId: payment.id, disputeId: input.disputeId });
    return;
  }
  const taken = await db
    .select({ deltaMs: serviceTimeLedger.deltaMs })
    .from(serviceTimeLedger)
    .where(eq(serviceTimeLedger.sourceKey, `dispute:${input.disputeId}`))
    .get();
  const restoreMs = taken ? -taken.deltaMs : 0;
  const time = serviceTimeStatements(
    db,
    {
      userId: payment.userId,
      deltaMs: restoreMs,
      kind: "dispute_won",
      sourceKey: `dispute_won:${input.disputeId}`,
      paymentId: payment.id,
      guard: sql`EXISTS (SELECT 1 FROM ${payments} WHERE ${payments.id} = ${payment.id} AND ${payments.disputeStatus} = 'won')`,
    },
    now,
  );
  const [updated] = await db.batch([
    db
      .update(payments)
      .set({ disputeStatus: "won", updatedAt: now })
      .where(and(eq(payments.id, payment.id), eq(payments.disputeStatus, "open")))
      .returning({ id: payments.id }),
    ...(taken ? time.statements : []),
  ]);
  if (updated.length > 0) {
    ctx.log.info("payments.dispute_won", { paymentId: payment.id, disputeId: input.disputeId, restoredMs: restoreMs });
    if (restoreMs > 0) ctx.waitUntil(resumeCapture(ctx.env, payment.userId));
  }
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
