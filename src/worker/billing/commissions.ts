import { and, eq, gt, isNotNull, lt, ne, or, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { commissions, payments, referralCodes, resellers, users } from "../db/schema";
import { PaymentsProviderError } from "../providers/payments/provider-error";
import type { BillingContext } from "./context";
import { paymentsProvider } from "./payments-provider";

export type CommissionRow = typeof commissions.$inferSelect;

/** How long one settle holds a commission; a crashed one is taken over after it. */
const LEASE_MS = 60_000;

/**
 * The commission of a successful payment by a client of an approved reseller (the driver
 * registered with the reseller's referral code): the reseller's rate of the amount, rounded down,
 * recorded once per payment. Runs in the same transaction that makes the payment successful.
 */
export function commissionInsert(db: Db, paymentId: number, now: number) {
  const share = sql<number>`(${payments.amountCents} * ${resellers.commissionBps}) / 10000`;
  return db
    .insert(commissions)
    .select(
      db
        .select({
          id: sql<number>`NULL`.as("id"),
          paymentId: payments.id,
          resellerId: resellers.userId,
          clientId: payments.userId,
          amountCents: share.as("amount_cents"),
          commissionBps: resellers.commissionBps,
          status: sql<"pending">`'pending'`.as("status"),
          reversalDueCents: sql<number>`0`.as("reversal_due_cents"),
          transferId: sql<string | null>`NULL`.as("transfer_id"),
          transferredCents: sql<number>`0`.as("transferred_cents"),
          reversedCents: sql<number>`0`.as("reversed_cents"),
          attempts: sql<number>`0`.as("attempts"),
          lastError: sql<string | null>`NULL`.as("last_error"),
          leaseUntil: sql<number>`0`.as("lease_until"),
          createdAt: sql<number>`${now}`.as("created_at"),
          updatedAt: sql<number>`${now}`.as("updated_at"),
        })
        .from(payments)
        .innerJoin(users, eq(users.id, payments.userId))
        // A code belongs to one app: an account of the other app holding it (registered before the lookup was app-scoped) earns nobody anything.
        .innerJoin(referralCodes, and(eq(referralCodes.code, users.referralCode), eq(referralCodes.app, users.app)))
        .innerJoin(resellers, and(eq(resellers.userId, referralCodes.ownerUserId), eq(resellers.status, "approved")))
        .where(and(eq(payments.id, paymentId), eq(payments.status, "successful"), ne(resellers.userId, payments.userId), gt(share, 0))),
    )
    .onConflictDoNothing({ target: commissions.paymentId });
}

/** A refund of `refundedCents` (cumulative) of a payment of `amountCents`: the commission's share of it is no longer owed. */
export function commissionReversalUpdate(db: Db, paymentId: number, refundedCents: number, amountCents: number, now: number) {
  return db
    .update(commissions)
    .set({
      reversalDueCents: sql`max(${commissions.reversalDueCents}, (${commissions.amountCents} * ${refundedCents}) / ${amountCents})`,
      updatedAt: now,
    })
    .where(eq(commissions.paymentId, paymentId));
}

/** What a commission still needs from the provider: a transfer of what is owed, or a reversal of what is no longer owed. */
const workDue = or(
  and(eq(commissions.status, "pending")),
  and(
    isNotNull(commissions.transferId),
    sql`${commissions.transferredCents} - ${commissions.reversedCents} > ${commissions.amountCents} - ${commissions.reversalDueCents}`,
  ),
);

/**
 * Brings one commission's provider side in line with what is owed: transfers the owed amount to
 * the reseller's Express account once (when its payouts are enabled; until then it waits), and
 * reverses the part of a transfer a refund took back. Idempotency keys name each provider call,
 * so a retry after a crash repeats nothing at the provider.
 */
export async function settleCommission(ctx: BillingContext, id: number): Promise<CommissionRow | undefined> {
  const { db } = ctx;
  const now = Date.now();
  let row = await db
    .update(commissions)
    .set({ leaseUntil: now + LEASE_MS, attempts: sql`${commissions.attempts} + 1`, updatedAt: now })
    .where(and(eq(commissions.id, id), lt(commissions.leaseUntil, now), workDue))
    .returning()
    .get();
  if (!row) return undefined;
  const provider = paymentsProvider(ctx);
  const release = (set: Partial<CommissionRow>) =>
    db
      .update(commissions)
      .set({ ...set, leaseUntil: 0, updatedAt: Date.now() })
      .where(eq(commissions.id, id))
      .returning()
      .get();
  try {
    const owed = Math.max(0, row.amountCents - row.reversalDueCents);
    if (!row.transferId) {
      if (owed === 0) return await release({ status: "reversed", lastError: null });
      const reseller = await db
        .select({ accountId: users.stripeExpressId, payoutsEnabled: resellers.payoutsEnabled })
        .from(users)
        .innerJoin(resellers, eq(resellers.userId, users.id))
        .where(eq(users.id, row.resellerId))
        .get();
      if (!reseller?.accountId || !reseller.payoutsEnabled) return await release({ lastError: "awaiting_onboarding" });
      const transfer = await provider.createTransfer({
        amountCents: owed,
        destination: reseller.accountId,
        transferGroup: `payment_${row.paymentId}`,
        idempotencyKey: `commission-${row.id}-transfer`,
        commissionId: row.id,
      });
      row = (await db
        .update(commissions)
        .set({ transferId: transfer.id, transferredCents: owed, status: "paid", lastError: null, updatedAt: Date.now() })
        .where(eq(commissions.id, id))
        .returning()
        .get())!;
      ctx.log.info("commissions.transferred", { commissionId: id, amountCents: owed, transferId: transfer.id });
    }
    // A refund may have arrived while (or before) the transfer went out: reverse what is no longer owed.
    const latest = (await db.select().from(commissions).where(eq(commissions.id, id)).get())!;
    const stillOwed = Math.max(0, latest.amountCents - latest.reversalDueCents);
    const outstanding = latest.transferredCents - latest.reversedCents;
    if (latest.transferId && outstanding > stillOwed) {
      await provider.reverseTransfer({
        transferId: latest.transferId,
        amountCents: outstanding - stillOwed,
        idempotencyKey: `commission-${id}-reversal-${latest.reversalDueCents}`,
      });
      ctx.log.info("commissions.reversed", { commissionId: id, amountCents: outstanding - stillOwed });
      return await release({ reversedCents: latest.transferredCents - stillOwed, status: stillOwed === 0 ? "reversed" : "paid", lastError: null });
    }
    return await release({});
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    ctx.log.error("commissions.settle_failed", { commissionId: id, error: message });
    // A refused call waits for the next sweep like a failed one; the error is kept for the billing page.
    const retryable = !(err instanceof PaymentsProviderError) || err.retryable;
    await db
      .update(commissions)
      .set({ lastError: message.slice(0, 300), leaseUntil: Date.now() + (retryable ? 0 : 15 * 60_000), updatedAt: Date.now() })
      .where(eq(commissions.id, id));
    return undefined;
  }
}

/** The commission of a payment, settled; never throws (it runs after the answer, and the sweep retries). */
export async function settleCommissionOf(ctx: BillingContext, paymentId: number): Promise<void> {
  try {
    const row = await ctx.db.select({ id: commissions.id }).from(commissions).where(eq(commissions.paymentId, paymentId)).get();
    if (row) await settleCommission(ctx, row.id);
  } catch (err) {
    ctx.log.error("commissions.settle_failed", { paymentId, error: err instanceof Error ? err.message : String(err) });
  }
}

/**
 * The cron's pass: commissions with provider work due (a transfer whose reseller can now be paid,
 * a reversal, one a crash or an outage left behind), a bounded number per run.
 */
export async function sweepCommissions(ctx: BillingContext, limit = 25): Promise<number> {
  const now = Date.now();
  const due = await ctx.db
    .select({ id: commissions.id })
    .from(commissions)
    .innerJoin(resellers, eq(resellers.userId, commissions.resellerId))
    .where(
      and(
        lt(commissions.leaseUntil, now),
        or(
          and(eq(commissions.status, "pending"), or(eq(resellers.payoutsEnabled, true), sql`${commissions.reversalDueCents} >= ${commissions.amountCents}`)),
          and(
            isNotNull(commissions.transferId),
            sql`${commissions.transferredCents} - ${commissions.reversedCents} > ${commissions.amountCents} - ${commissions.reversalDueCents}`,
          ),
        ),
      ),
    )
    .orderBy(commissions.updatedAt)
    .limit(limit);
  for (const { id } of due) await settleCommission(ctx, id);
  return due.length;
}
