import { and, eq, inArray, sql } from "drizzle-orm";
import type { SessionUser } from "../context";
import { payments, type plans } from "../db/schema";
import { ApiError } from "../errors";
import { resumeCapture } from "../platform/capture";
import { PaymentsProviderError } from "../providers/payments/provider-error";
import { commissionInsert, settleCommissionOf } from "./commissions";
import type { BillingContext } from "./context";
import { grantFreeWeek } from "./invitations";
import { paymentsProvider } from "./payments-provider";
import { DAY_MS, serviceTimeStatements } from "./service-time";

export type PaymentRow = typeof payments.$inferSelect;
export type PlanRow = typeof plans.$inferSelect;

/** How long a checkout session accepts payment (Stripe allows 30 minutes to 24 hours). */
const CHECKOUT_TTL_MS = 60 * 60_000;

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
  // The reason first: the provider's expired event (sent at once by the Stripe emulator) then keeps it.
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
