import { and, eq, isNull, sql } from "drizzle-orm";
import { payments, serviceTimeLedger } from "../db/schema";
import { resumeCapture } from "../platform/capture";
import { commissionReversalUpdate } from "./commissions";
import type { BillingContext } from "./context";
import { afterMoneyTakenBack, unusedShareMs } from "./refunds";
import { serviceTimeStatements } from "./service-time";

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
