import type { Logger } from "../../log";
import { LocalPayments } from "./local";
import { StripePayments } from "./stripe";

/** What a checkout sells: one plan, for one driver, paid by that driver or their reseller. */
export type CheckoutRequest = {
  paymentId: number;
  userId: number;
  payerId: number;
  amountCents: number;
  currency: "usd";
  productName: string;
  description: string;
  customerEmail: string | null;
  successUrl: string;
  cancelUrl: string;
  /** When the session stops accepting payment (epoch ms; Stripe allows 30 minutes to 24 hours). */
  expiresAt: number;
  /** Ties the payment to the transfer of its reseller commission, if any. */
  transferGroup: string;
};

export type ExpressAccount = { id: string; detailsSubmitted: boolean; payoutsEnabled: boolean };

/**
 * The payments provider: Stripe (Checkout in payment mode, refunds, Connect Express accounts and
 * transfers) or the embedded local provider that answers the same calls and produces the same
 * signed events. Settlement never trusts these answers alone: events through the webhook do it.
 */
export interface PaymentsProvider {
  readonly name: "stripe" | "local";
  createCheckoutSession(request: CheckoutRequest): Promise<{ id: string; url: string }>;
  /** Ends an open session (the driver went back); Stripe then sends checkout.session.expired. */
  expireCheckoutSession(sessionId: string): Promise<void>;
  /** Refunds `amountCents` of the payment intent's charge; Stripe then sends charge.refunded. */
  refund(request: { paymentIntentId: string; amountCents: number; idempotencyKey: string; paymentId: number }): Promise<{ id: string }>;
  createExpressAccount(request: { userId: number; email: string | null; country: "US" | "CA" }): Promise<{ id: string }>;
  createAccountLink(request: { accountId: string; refreshUrl: string; returnUrl: string }): Promise<{ url: string }>;
  retrieveAccount(accountId: string): Promise<ExpressAccount>;
  createTransfer(request: { amountCents: number; destination: string; transferGroup: string; idempotencyKey: string; commissionId: number }): Promise<{
    id: string;
  }>;
  reverseTransfer(request: { transferId: string; amountCents: number; idempotencyKey: string }): Promise<{ id: string }>;
}

/** A provider call that failed; `retryable` for rate limits, outages and time-outs. */
export class PaymentsProviderError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = "PaymentsProviderError";
  }
}

/** The embedded provider delivers its events to our webhook handler, and that may leave work running. */
export type ProviderDeps = { log: Logger; waitUntil: (promise: Promise<unknown>) => void };

/**
 * The embedded provider takes test cards for real service time, so it never runs in production:
 * a production Worker left on "local" refuses to take payments rather than give days away.
 */
export function localPaymentsAllowed(env: Pick<Env, "PAYMENTS_PROVIDER" | "ENVIRONMENT">): boolean {
  return env.PAYMENTS_PROVIDER === "local" && env.ENVIRONMENT !== "production";
}

/** The provider PAYMENTS_PROVIDER names: "local" (embedded default, never in production) or "stripe". */
export function createPaymentsProvider(env: Env, deps: ProviderDeps): PaymentsProvider {
  if (env.PAYMENTS_PROVIDER === "stripe") return new StripePayments(env);
  if (localPaymentsAllowed(env)) return new LocalPayments(env, deps);
  if (env.PAYMENTS_PROVIDER === "local") throw new Error('PAYMENTS_PROVIDER = "local" is for development; set "stripe" in production');
  throw new Error(`Unknown PAYMENTS_PROVIDER "${env.PAYMENTS_PROVIDER}"`);
}
