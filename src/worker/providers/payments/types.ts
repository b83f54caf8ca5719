import type { Logger } from "../../log";

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
 * transfers) or the Stripe emulator that answers the same calls and produces the same signed
 * events. Settlement never trusts these answers alone: events through the webhook do it.
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

/**
 * How the app's webhook handler answered a signed event: "rejected" and "in_flight" leave it to be
 * delivered again, as Stripe retries an answer other than 2xx.
 */
export type EventDeliveryAnswer = { result: "processed" | "ignored" | "duplicate" | "in_flight" | "rejected" };

/** Hands a signed event (its raw body and Stripe-Signature header) to the app's webhook handler, as Stripe posts it. */
export type DeliverEvent = (payload: string, signatureHeader: string) => Promise<EventDeliveryAnswer>;

/** What the Stripe emulator needs from whoever creates it: a log, and where its events go. */
export type ProviderDeps = { log: Logger; deliverEvent: DeliverEvent };
