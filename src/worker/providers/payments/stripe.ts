import Stripe from "stripe";
import { providerTimeoutMs } from "../http-call";
import { PaymentsProviderError } from "./provider-error";
import type { CheckoutRequest, ExpressAccount, PaymentsProvider } from "./types";

/** A Stripe client on Workers: the fetch HTTP client, and the API base from STRIPE_API_BASE (the fake server in tests). */
export function stripeClient(env: Pick<Env, "STRIPE_SECRET_KEY" | "STRIPE_API_BASE" | "PROVIDER_TIMEOUT_MS">): Stripe {
  const base = new URL(env.STRIPE_API_BASE || "https://api.stripe.com");
  return new Stripe(env.STRIPE_SECRET_KEY, {
    httpClient: Stripe.createFetchHttpClient(),
    host: base.hostname,
    port: base.port || (base.protocol === "http:" ? 80 : 443),
    protocol: base.protocol === "http:" ? "http" : "https",
    timeout: providerTimeoutMs(env),
    // Every write below carries an idempotency key, so the library's own retries of a 429, 5xx or
    // dropped connection cannot charge, refund or transfer twice.
    maxNetworkRetries: 2,
  });
}

function providerError(err: unknown): PaymentsProviderError {
  if (err instanceof Stripe.errors.StripeError) {
    const status = err.statusCode;
    const retryable =
      err instanceof Stripe.errors.StripeRateLimitError ||
      err instanceof Stripe.errors.StripeAPIError ||
      err instanceof Stripe.errors.StripeConnectionError ||
      (status !== undefined && (status === 429 || status >= 500));
    return new PaymentsProviderError(err.message, err.code ?? err.type, retryable, status);
  }
  return new PaymentsProviderError(err instanceof Error ? err.message : String(err), "network_error", true);
}

async function call<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw providerError(err);
  }
}

/** Stripe through the official library: Checkout (mode payment), refunds, Connect Express and transfers. */
export class StripePayments implements PaymentsProvider {
  readonly name = "stripe" as const;
  private readonly stripe: Stripe;

  constructor(env: Env) {
    this.stripe = stripeClient(env);
  }

  async createCheckoutSession(r: CheckoutRequest) {
    const metadata = { paymentId: String(r.paymentId), userId: String(r.userId), payerId: String(r.payerId) };
    const session = await call(() =>
      this.stripe.checkout.sessions.create(
        {
          mode: "payment",
          line_items: [
            {
              quantity: 1,
              price_data: { currency: r.currency, unit_amount: r.amountCents, product_data: { name: r.productName, description: r.description } },
            },
          ],
          client_reference_id: String(r.paymentId),
          metadata,
          payment_intent_data: { metadata, transfer_group: r.transferGroup },
          ...(r.customerEmail ? { customer_email: r.customerEmail } : {}),
          success_url: r.successUrl,
          cancel_url: r.cancelUrl,
          expires_at: Math.floor(r.expiresAt / 1000),
        },
        { idempotencyKey: `checkout-${r.paymentId}` },
      ),
    );
    if (!session.url) throw new PaymentsProviderError("Stripe returned a session without a URL", "no_url", false);
    return { id: session.id, url: session.url };
  }

  async expireCheckoutSession(sessionId: string) {
    await call(() => this.stripe.checkout.sessions.expire(sessionId));
  }

  async refund(r: { paymentIntentId: string; amountCents: number; idempotencyKey: string; paymentId: number }) {
    const refund = await call(() =>
      this.stripe.refunds.create(
        { payment_intent: r.paymentIntentId, amount: r.amountCents, metadata: { paymentId: String(r.paymentId) } },
        { idempotencyKey: r.idempotencyKey },
      ),
    );
    return { id: refund.id };
  }

  async createExpressAccount(r: { userId: number; email: string | null; country: "US" | "CA" }) {
    const account = await call(() =>
      this.stripe.accounts.create(
        {
          type: "express",
          country: r.country,
          ...(r.email ? { email: r.email } : {}),
          capabilities: { transfers: { requested: true } },
          metadata: { userId: String(r.userId) },
        },
        { idempotencyKey: `express-account-${r.userId}` },
      ),
    );
    return { id: account.id };
  }

  async createAccountLink(r: { accountId: string; refreshUrl: string; returnUrl: string }) {
    const link = await call(() =>
      this.stripe.accountLinks.create({ account: r.accountId, refresh_url: r.refreshUrl, return_url: r.returnUrl, type: "account_onboarding" }),
    );
    return { url: link.url };
  }

  async retrieveAccount(accountId: string): Promise<ExpressAccount> {
    const account = await call(() => this.stripe.accounts.retrieve(accountId));
    return {
      id: account.id,
      detailsSubmitted: account.details_submitted === true,
      payoutsEnabled: account.payouts_enabled === true && account.capabilities?.transfers === "active",
    };
  }

  async createTransfer(r: { amountCents: number; destination: string; transferGroup: string; idempotencyKey: string; commissionId: number }) {
    const transfer = await call(() =>
      this.stripe.transfers.create(
        {
          amount: r.amountCents,
          currency: "usd",
          destination: r.destination,
          transfer_group: r.transferGroup,
          metadata: { commissionId: String(r.commissionId) },
        },
        { idempotencyKey: r.idempotencyKey },
      ),
    );
    return { id: transfer.id };
  }

  async reverseTransfer(r: { transferId: string; amountCents: number; idempotencyKey: string }) {
    const reversal = await call(() => this.stripe.transfers.createReversal(r.transferId, { amount: r.amountCents }, { idempotencyKey: r.idempotencyKey }));
    return { id: reversal.id };
  }
}
