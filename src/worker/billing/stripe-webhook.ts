import { eq, sql } from "drizzle-orm";
import Stripe from "stripe";
import { z } from "zod";
import { isProduction } from "../config";
import { stripeEvents } from "../db/schema";
import { recordDecline, settleFailed, settlePaid } from "./checkout";
import type { BillingContext } from "./context";
import { settleDisputeClosed, settleDisputeOpened } from "./disputes";
import { settleRefund } from "./refunds";
import { updateAccountStatus } from "./reseller-onboarding";

/** Stripe's default: a signature more than five minutes old is refused, so a captured request cannot be replayed later. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;
/** An event claimed this long ago whose handler never finished (a crash) may be taken over by a redelivery. */
const CLAIM_LEASE_MS = 60_000;

const cryptoProvider = Stripe.createSubtleCryptoProvider();

export type WebhookOutcome =
  | { result: "rejected"; reason: "missing_signature" | "invalid_signature" }
  | { result: "processed" | "ignored"; type: string; eventId: string }
  | { result: "duplicate" | "in_flight"; type: string; eventId: string };

// Only the fields we act on are read, and each is checked: a signed event is Stripe's, but its
// shape is still data.
const metadataSchema = z.object({ paymentId: z.coerce.number().int().positive() });
const sessionSchema = z.object({
  id: z.string(),
  payment_status: z.string(),
  payment_intent: z.union([z.string(), z.object({ id: z.string() })]).nullish(),
  metadata: metadataSchema,
});
const intentSchema = z.object({
  id: z.string(),
  metadata: metadataSchema,
  last_payment_error: z.object({ code: z.string().nullish(), decline_code: z.string().nullish() }).nullish(),
});
const chargeSchema = z.object({
  payment_intent: z.union([z.string(), z.object({ id: z.string() })]),
  amount_refunded: z.number().int().nonnegative(),
});
const disputeSchema = z.object({
  id: z.string(),
  // Stripe names the dispute's payment intent (Checkout payments always have one).
  payment_intent: z.union([z.string(), z.object({ id: z.string() })]),
  amount: z.number().int().nonnegative(),
  status: z.string(),
});
const accountSchema = z.object({
  id: z.string(),
  details_submitted: z.boolean().nullish(),
  payouts_enabled: z.boolean().nullish(),
  capabilities: z.object({ transfers: z.string().nullish() }).nullish(),
});

const idOf = (value: string | { id: string } | null | undefined) => (typeof value === "string" ? value : (value?.id ?? null));

/** Verifies with each configured signing secret (the account endpoint's, then the Connect endpoint's). */
async function verifiedEvent(env: Env, payload: string, header: string): Promise<Stripe.Event | null> {
  for (const secret of [env.STRIPE_WEBHOOK_SECRET, env.STRIPE_CONNECT_WEBHOOK_SECRET]) {
    if (!secret) continue;
    try {
      return await Stripe.webhooks.constructEventAsync(payload, header, secret, SIGNATURE_TOLERANCE_SECONDS, cryptoProvider);
    } catch (err) {
      if (!(err instanceof Stripe.errors.StripeSignatureVerificationError)) throw err;
    }
  }
  return null;
}

/** Does what one event says. Each step is idempotent, so a retried or concurrent event repeats nothing. */
async function apply(ctx: BillingContext, event: Stripe.Event): Promise<boolean> {
  const object = event.data.object as unknown;
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded": {
      const session = sessionSchema.parse(object);
      // A completed session with a delayed method (bank debit) is not money yet; its async event settles it.
      if (session.payment_status !== "paid") return true;
      await settlePaid(ctx, { paymentId: session.metadata.paymentId, sessionId: session.id, paymentIntentId: idOf(session.payment_intent) });
      return true;
    }
    case "checkout.session.async_payment_failed":
    case "checkout.session.expired": {
      const session = sessionSchema.parse(object);
      const code = event.type === "checkout.session.expired" ? "expired" : "async_payment_failed";
      await settleFailed(ctx, { paymentId: session.metadata.paymentId, sessionId: session.id, code });
      return true;
    }
    case "payment_intent.payment_failed": {
      const intent = intentSchema.parse(object);
      const error = intent.last_payment_error;
      await recordDecline(ctx, { paymentId: intent.metadata.paymentId, code: error?.decline_code ?? error?.code ?? "payment_failed" });
      return true;
    }
    case "charge.refunded": {
      const charge = chargeSchema.parse(object);
      await settleRefund(ctx, { paymentIntentId: idOf(charge.payment_intent)!, amountRefunded: charge.amount_refunded });
      return true;
    }
    case "charge.dispute.created": {
      const dispute = disputeSchema.parse(object);
      await settleDisputeOpened(ctx, { paymentIntentId: idOf(dispute.payment_intent)!, disputeId: dispute.id, amount: dispute.amount });
      return true;
    }
    case "charge.dispute.closed": {
      const dispute = disputeSchema.parse(object);
      await settleDisputeClosed(ctx, { paymentIntentId: idOf(dispute.payment_intent)!, disputeId: dispute.id, status: dispute.status });
      return true;
    }
    case "account.updated": {
      const account = accountSchema.parse(object);
      await updateAccountStatus(ctx, {
        id: account.id,
        detailsSubmitted: account.details_submitted === true,
        payoutsEnabled: account.payouts_enabled === true && account.capabilities?.transfers === "active",
      });
      return true;
    }
    default:
      return false;
  }
}

/**
 * POST /api/webhooks/stripe, and the Stripe emulator's events: the signature is checked on the
 * raw body before anything is parsed; in production a test-mode event is ignored; then the event id is claimed, so each event is acted on
 * once. A redelivery of a finished event is a duplicate (200); one whose first delivery is still
 * running answers in_flight (409, so Stripe tries again later); a failure releases the claim and
 * answers 500, so Stripe's retry finishes the work.
 */
export async function receiveStripeWebhook(ctx: BillingContext, payload: string, signature: string | undefined): Promise<WebhookOutcome> {
  if (!signature) return { result: "rejected", reason: "missing_signature" };
  const event = await verifiedEvent(ctx.env, payload, signature);
  if (!event) return { result: "rejected", reason: "invalid_signature" };
  // Production acts on live events only: a test-mode event (a test key's checkout, the dashboard's
  // test sends) moved no money. It is answered 200, so Stripe does not send it again, and changes nothing.
  if (isProduction(ctx.env) && event.livemode !== true) {
    ctx.log.warn("stripe.test_event_ignored", { eventId: event.id, type: event.type });
    return { result: "ignored", type: event.type, eventId: event.id };
  }

  const { db } = ctx;
  const now = Date.now();
  const claimed = await db
    .insert(stripeEvents)
    .values({ id: event.id, type: event.type, status: "processing", attempts: 1, claimedAt: now })
    .onConflictDoUpdate({
      target: stripeEvents.id,
      set: { status: "processing", attempts: sql`${stripeEvents.attempts} + 1`, claimedAt: now, error: null },
      setWhere: sql`${stripeEvents.status} = 'failed' OR (${stripeEvents.status} = 'processing' AND ${stripeEvents.claimedAt} < ${now - CLAIM_LEASE_MS})`,
    })
    .returning({ id: stripeEvents.id })
    .get();
  if (!claimed) {
    const seen = await db.select({ status: stripeEvents.status }).from(stripeEvents).where(eq(stripeEvents.id, event.id)).get();
    return { result: seen?.status === "processed" ? "duplicate" : "in_flight", type: event.type, eventId: event.id };
  }

  try {
    const handled = await apply(ctx, event);
    await db.update(stripeEvents).set({ status: "processed", processedAt: Date.now() }).where(eq(stripeEvents.id, event.id));
    ctx.log.info("stripe.event", { eventId: event.id, type: event.type, handled });
    return { result: handled ? "processed" : "ignored", type: event.type, eventId: event.id };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof z.ZodError) {
      // A signed event without the fields we need can never succeed: retrying it would loop for days.
      ctx.log.error("stripe.event_malformed", { eventId: event.id, type: event.type, error: message });
      await db
        .update(stripeEvents)
        .set({ status: "processed", processedAt: Date.now(), error: message.slice(0, 500) })
        .where(eq(stripeEvents.id, event.id));
      return { result: "ignored", type: event.type, eventId: event.id };
    }
    ctx.log.error("stripe.event_failed", { eventId: event.id, type: event.type, error: message });
    await db
      .update(stripeEvents)
      .set({ status: "failed", error: message.slice(0, 500) })
      .where(eq(stripeEvents.id, event.id));
    throw err;
  }
}
