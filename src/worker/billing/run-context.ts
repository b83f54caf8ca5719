import type { Context } from "hono";
import type { AppEnv } from "../context";
import type { BillingContext } from "./context";
import { receiveStripeWebhook } from "./stripe-webhook";

/**
 * A billing context of a run (a request, the cron, a test) whose Stripe emulator delivers its
 * events to the webhook handler, as Stripe posts them to /api/webhooks/stripe.
 */
export function billingContextOf(run: Omit<BillingContext, "deliverStripeEvent">): BillingContext {
  const ctx: BillingContext = { ...run, deliverStripeEvent: (payload, signature) => receiveStripeWebhook(ctx, payload, signature) };
  return ctx;
}

export function billingContext(c: Context<AppEnv>): BillingContext {
  return billingContextOf({ env: c.env, db: c.var.db, log: c.var.log, waitUntil: (promise) => c.executionCtx.waitUntil(promise) });
}
