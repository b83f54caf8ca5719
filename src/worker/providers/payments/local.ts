import { and, asc, eq, lt, sql } from "drizzle-orm";
import Stripe from "stripe";
import { receiveStripeWebhook } from "../../billing/stripe-webhook";
import { createDb, type Db } from "../../db/client";
import { localStripeObjects } from "../../db/schema";
import type { Logger } from "../../log";
import type { CheckoutRequest, ExpressAccount, PaymentsProvider, ProviderDeps } from "./provider";
import { PaymentsProviderError } from "./provider";
import { stripeSignatureHeader } from "./stripe-signature";

type Json = Record<string, unknown>;

export type LocalCheckoutSession = {
  id: string;
  object: "checkout.session";
  mode: "payment";
  status: "open" | "complete" | "expired";
  payment_status: "unpaid" | "paid";
  amount_total: number;
  currency: string;
  client_reference_id: string;
  customer_email: string | null;
  metadata: Record<string, string>;
  payment_intent: string | null;
  success_url: string;
  cancel_url: string;
  url: string;
  created: number;
  expires_at: number;
  /** Not Stripe's: what the local page shows (Stripe keeps these on line items). */
  local: { product_name: string; description: string; transfer_group: string; intent_metadata: Record<string, string> };
};

type LocalCharge = { id: string; object: "charge"; amount: number; amount_refunded: number; refunded: boolean; payment_intent: string; metadata: Json };
type LocalDispute = {
  id: string;
  object: "dispute";
  amount: number;
  currency: string;
  charge: string;
  payment_intent: string;
  reason: string;
  status: "needs_response" | "won" | "lost";
  created: number;
};
type LocalAccount = {
  id: string;
  object: "account";
  type: "express";
  email: string | null;
  country: string;
  details_submitted: boolean;
  payouts_enabled: boolean;
  charges_enabled: boolean;
  capabilities: { transfers: "inactive" | "active" };
  metadata: Json;
};
type LocalAccountLink = { id: string; object: "account_link"; account: string; refresh_url: string; return_url: string; url: string; expires_at: number };
type LocalTransfer = { id: string; object: "transfer"; amount: number; amount_reversed: number; destination: string; transfer_group: string; metadata: Json };

/**
 * Stripe's test card that pays and is then disputed as fraudulent (4000 0000 0000 0259): the
 * checkout completes, and charge.dispute.created follows, as on Stripe.
 */
export const LOCAL_DISPUTED_CARD = "4000000000000259";

/** Stripe's test cards as the local checkout knows them: null succeeds, otherwise the decline it answers. */
export const LOCAL_TEST_CARDS: Record<string, { code: string; decline_code: string; message: string } | null> = {
  "4242424242424242": null,
  "5555555555554444": null,
  "4000000000000002": { code: "card_declined", decline_code: "generic_decline", message: "Your card was declined." },
  "4000000000009995": { code: "card_declined", decline_code: "insufficient_funds", message: "Your card has insufficient funds." },
  [LOCAL_DISPUTED_CARD]: null,
};

export type CardInput = { number: string; expMonth: number; expYear: number; cvc: string };
export type PayOutcome =
  | { outcome: "succeeded"; redirectUrl: string }
  | { outcome: "declined"; code: string; declineCode: string; message: string }
  | { outcome: "invalid"; field: "number" | "expiry" | "cvc"; message: string }
  | { outcome: "not_open"; status: LocalCheckoutSession["status"]; redirectUrl: string };

const randomId = (prefix: string) =>
  `${prefix}_local_${Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("")}`;
const seconds = (ms: number) => Math.floor(ms / 1000);

/** Luhn's check digit test, as card forms run before sending anything. */
export function luhnValid(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * The embedded payments provider (PAYMENTS_PROVIDER = "local"): Stripe's objects kept in D1
 * (local_stripe_objects), a checkout page and an onboarding page served by this app (the SPA's
 * /local-stripe/* routes over /api/local-stripe/*), and Stripe-shaped events signed with
 * STRIPE_WEBHOOK_SECRET in the t=…,v1=… scheme, handed to the same webhook handler as Stripe's.
 * An event the handler could not take is kept and delivered again by the cron, as Stripe retries.
 */
export class LocalPayments implements PaymentsProvider {
  readonly name = "local" as const;
  private readonly db: Db;
  private readonly log: Logger;

  constructor(
    private readonly env: Env,
    private readonly deps: ProviderDeps,
  ) {
    this.db = createDb(env.DB);
    this.log = deps.log;
  }

  // --- storage -------------------------------------------------------------------------------

  private async get<T>(id: string, object: string): Promise<T | undefined> {
    const row = await this.db
      .select({ data: localStripeObjects.data })
      .from(localStripeObjects)
      .where(and(eq(localStripeObjects.id, id), eq(localStripeObjects.object, object)))
      .get();
    return row?.data as T | undefined;
  }

  private async put(data: { id: string; object: string } & Json): Promise<void> {
    const now = Date.now();
    await this.db.insert(localStripeObjects).values({ id: data.id, object: data.object, data, createdAt: now, updatedAt: now });
  }

  /** Replaces an object only if `field` still holds `expected` (a compare-and-set, so two requests cannot both act). */
  private async replaceIf(id: string, field: string, expected: string | number | boolean, data: Json): Promise<boolean> {
    const updated = await this.db
      .update(localStripeObjects)
      .set({ data, updatedAt: Date.now() })
      .where(and(eq(localStripeObjects.id, id), sql`json_extract(${localStripeObjects.data}, ${`$.${field}`}) = ${expected}`))
      .returning({ id: localStripeObjects.id });
    return updated.length > 0;
  }

  /** Stripe answers a repeated idempotency key with the first result; so does this. */
  private async idempotent(key: string, create: () => Promise<string>): Promise<string> {
    const recordId = `idem_${key}`;
    const seen = await this.get<{ result: string }>(recordId, "idempotency_key");
    if (seen) return seen.result;
    const result = await create();
    await this.db
      .insert(localStripeObjects)
      .values({ id: recordId, object: "idempotency_key", data: { result }, createdAt: Date.now(), updatedAt: Date.now() })
      .onConflictDoNothing();
    return result;
  }

  private error(message: string, code: string, status = 400): PaymentsProviderError {
    return new PaymentsProviderError(message, code, false, status);
  }

  // --- events --------------------------------------------------------------------------------

  private async emit(type: string, object: Json, extra: Json = {}): Promise<void> {
    const event = {
      id: randomId("evt"),
      object: "event",
      api_version: Stripe.API_VERSION,
      created: seconds(Date.now()),
      data: { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
      ...extra,
    };
    const payload = JSON.stringify(event);
    await this.put({ id: event.id, object: "event", delivered: false, payload });
    await this.deliver(event.id, payload);
  }

  private async deliver(eventId: string, payload: string): Promise<boolean> {
    const ctx = { env: this.env, db: this.db, log: this.log, waitUntil: this.deps.waitUntil };
    try {
      const header = await stripeSignatureHeader(payload, this.env.STRIPE_WEBHOOK_SECRET);
      const outcome = await receiveStripeWebhook(ctx, payload, header);
      if (outcome.result === "rejected" || outcome.result === "in_flight") throw new Error(`webhook answered ${outcome.result}`);
      await this.db
        .update(localStripeObjects)
        .set({ data: { delivered: true, payload }, updatedAt: Date.now() })
        .where(eq(localStripeObjects.id, eventId));
      return true;
    } catch (err) {
      this.log.error("local_stripe.delivery_failed", { eventId, error: err instanceof Error ? err.message : String(err) });
      return false;
    }
  }

  /** The cron: events not yet taken by the handler are delivered again; open sessions past their time expire. */
  async housekeeping(now = Date.now()): Promise<{ redelivered: number; expired: number }> {
    const pending = await this.db
      .select({ id: localStripeObjects.id, data: localStripeObjects.data })
      .from(localStripeObjects)
      .where(
        and(
          eq(localStripeObjects.object, "event"),
          sql`json_extract(${localStripeObjects.data}, '$.delivered') = 0`,
          lt(localStripeObjects.updatedAt, now - 30_000),
        ),
      )
      .orderBy(asc(localStripeObjects.createdAt))
      .limit(25);
    let redelivered = 0;
    for (const row of pending) if (await this.deliver(row.id, String(row.data.payload))) redelivered++;
    const overdue = await this.db
      .select({ id: localStripeObjects.id })
      .from(localStripeObjects)
      .where(
        and(
          eq(localStripeObjects.object, "checkout.session"),
          sql`json_extract(${localStripeObjects.data}, '$.status') = 'open'`,
          sql`json_extract(${localStripeObjects.data}, '$.expires_at') < ${seconds(now)}`,
        ),
      )
      .limit(25);
    let expired = 0;
    for (const row of overdue) if (await this.expireSession(row.id)) expired++;
    return { redelivered, expired };
  }

  // --- checkout ------------------------------------------------------------------------------

  async createCheckoutSession(r: CheckoutRequest) {
    const id = await this.idempotent(`checkout-${r.paymentId}`, async () => {
      const id = randomId("cs");
      const metadata = { paymentId: String(r.paymentId), userId: String(r.userId), payerId: String(r.payerId) };
      const session: LocalCheckoutSession = {
        id,
        object: "checkout.session",
        mode: "payment",
        status: "open",
        payment_status: "unpaid",
        amount_total: r.amountCents,
        currency: r.currency,
        client_reference_id: String(r.paymentId),
        customer_email: r.customerEmail,
        metadata,
        payment_intent: null,
        success_url: r.successUrl,
        cancel_url: r.cancelUrl,
        url: `${new URL(r.successUrl).origin}/local-stripe/checkout/${id}`,
        created: seconds(Date.now()),
        expires_at: seconds(r.expiresAt),
        local: { product_name: r.productName, description: r.description, transfer_group: r.transferGroup, intent_metadata: metadata },
      };
      await this.put(session);
      return id;
    });
    const session = (await this.get<LocalCheckoutSession>(id, "checkout.session"))!;
    return { id, url: session.url };
  }

  async checkoutSession(id: string): Promise<LocalCheckoutSession | undefined> {
    return this.get<LocalCheckoutSession>(id, "checkout.session");
  }

  private async expireSession(id: string): Promise<boolean> {
    const session = await this.checkoutSession(id);
    if (session?.status !== "open") return false;
    const expired: LocalCheckoutSession = { ...session, status: "expired" };
    if (!(await this.replaceIf(id, "status", "open", expired))) return false;
    await this.emit("checkout.session.expired", expired);
    return true;
  }

  async expireCheckoutSession(sessionId: string) {
    const session = await this.checkoutSession(sessionId);
    if (!session) throw this.error(`No such checkout.session: '${sessionId}'`, "resource_missing", 404);
    if (!(await this.expireSession(sessionId))) {
      throw this.error('Only Checkout Sessions with a status in ["open"] can be expired.', "checkout_session_not_open");
    }
  }

  /** The local checkout page's Pay: Stripe's test cards succeed or decline as Stripe's do; the session stays open after a decline. */
  async payCheckout(sessionId: string, card: CardInput, now = Date.now()): Promise<PayOutcome | undefined> {
    const session = await this.checkoutSession(sessionId);
    if (!session) return undefined;
    if (session.status !== "open") {
      return { outcome: "not_open", status: session.status, redirectUrl: session.status === "complete" ? session.success_url : session.cancel_url };
    }
    const digits = card.number.replace(/\D/g, "");
    if (!luhnValid(digits)) return { outcome: "invalid", field: "number", message: "Your card number is invalid." };
    const today = new Date(now);
    const expYear = card.expYear < 100 ? 2000 + card.expYear : card.expYear;
    if (card.expMonth < 1 || card.expMonth > 12 || expYear * 12 + card.expMonth < today.getUTCFullYear() * 12 + today.getUTCMonth() + 1) {
      return { outcome: "invalid", field: "expiry", message: "Your card's expiration date is in the past." };
    }
    if (!/^\d{3,4}$/.test(card.cvc)) return { outcome: "invalid", field: "cvc", message: "Your card's security code is incomplete." };

    const intentId = session.payment_intent ?? randomId("pi");
    const known = Object.hasOwn(LOCAL_TEST_CARDS, digits);
    const decline = known
      ? LOCAL_TEST_CARDS[digits]
      : { code: "card_declined", decline_code: "test_mode_live_card", message: "Your card was declined. Use a Stripe test card such as 4242 4242 4242 4242." };
    if (decline) {
      const intent = {
        id: intentId,
        object: "payment_intent",
        amount: session.amount_total,
        currency: session.currency,
        status: "requires_payment_method",
        metadata: session.local.intent_metadata,
        last_payment_error: { type: "card_error", code: decline.code, decline_code: decline.decline_code, message: decline.message },
      };
      if (!session.payment_intent) await this.replaceIf(sessionId, "status", "open", { ...session, payment_intent: intentId });
      await this.emit("payment_intent.payment_failed", intent);
      return { outcome: "declined", code: decline.code, declineCode: decline.decline_code, message: decline.message };
    }

    const completed: LocalCheckoutSession = { ...session, status: "complete", payment_status: "paid", payment_intent: intentId };
    if (!(await this.replaceIf(sessionId, "status", "open", completed))) {
      const again = (await this.checkoutSession(sessionId))!;
      return { outcome: "not_open", status: again.status, redirectUrl: again.status === "complete" ? again.success_url : again.cancel_url };
    }
    const charge: LocalCharge = {
      id: randomId("ch"),
      object: "charge",
      amount: session.amount_total,
      amount_refunded: 0,
      refunded: false,
      payment_intent: intentId,
      metadata: session.local.intent_metadata,
    };
    await this.put(charge);
    await this.put({
      id: intentId,
      object: "payment_intent",
      amount: session.amount_total,
      currency: session.currency,
      status: "succeeded",
      latest_charge: charge.id,
      transfer_group: session.local.transfer_group,
      metadata: session.local.intent_metadata,
    });
    await this.emit("checkout.session.completed", completed);
    if (digits === LOCAL_DISPUTED_CARD) await this.openDispute(intentId);
    return { outcome: "succeeded", redirectUrl: session.success_url };
  }

  /** The local page's "back": like leaving Stripe's page, the driver returns to cancel_url (and the app then expires the session). */
  async cancelUrlOf(sessionId: string): Promise<string | undefined> {
    return (await this.checkoutSession(sessionId))?.cancel_url;
  }

  // --- refunds -------------------------------------------------------------------------------

  async refund(r: { paymentIntentId: string; amountCents: number; idempotencyKey: string; paymentId: number }) {
    const id = await this.idempotent(r.idempotencyKey, async () => {
      const intent = await this.get<{ latest_charge: string }>(r.paymentIntentId, "payment_intent");
      if (!intent) throw this.error(`No such payment_intent: '${r.paymentIntentId}'`, "resource_missing", 404);
      const charge = (await this.get<LocalCharge>(intent.latest_charge, "charge"))!;
      if (r.amountCents < 1 || charge.amount_refunded + r.amountCents > charge.amount) {
        throw this.error(`Refund amount ($${(r.amountCents / 100).toFixed(2)}) is greater than unrefunded amount on charge`, "amount_too_large");
      }
      const updated: LocalCharge = {
        ...charge,
        amount_refunded: charge.amount_refunded + r.amountCents,
        refunded: charge.amount_refunded + r.amountCents === charge.amount,
      };
      if (!(await this.replaceIf(charge.id, "amount_refunded", charge.amount_refunded, updated))) {
        throw new PaymentsProviderError("The charge changed meanwhile", "lock_timeout", true, 409);
      }
      const refundId = randomId("re");
      await this.put({ id: refundId, object: "refund", amount: r.amountCents, charge: charge.id, payment_intent: r.paymentIntentId, status: "succeeded" });
      await this.emit("charge.refunded", updated);
      return refundId;
    });
    return { id };
  }

  // --- disputes ------------------------------------------------------------------------------

  /**
   * The cardholder disputes the payment intent's charge (Stripe does it for the 0259 test card):
   * the whole amount not refunded, once per charge, then charge.dispute.created, signed like every
   * event. Answers the dispute id.
   */
  async openDispute(paymentIntentId: string, reason = "fraudulent"): Promise<string> {
    return this.idempotent(`dispute-${paymentIntentId}`, async () => {
      const intent = await this.get<{ latest_charge: string; currency: string }>(paymentIntentId, "payment_intent");
      if (!intent) throw this.error(`No such payment_intent: '${paymentIntentId}'`, "resource_missing", 404);
      const charge = (await this.get<LocalCharge>(intent.latest_charge, "charge"))!;
      if (charge.amount_refunded >= charge.amount) throw this.error("This charge has been fully refunded", "charge_already_refunded");
      const dispute: LocalDispute = {
        id: randomId("dp"),
        object: "dispute",
        amount: charge.amount - charge.amount_refunded,
        currency: intent.currency,
        charge: charge.id,
        payment_intent: paymentIntentId,
        reason,
        status: "needs_response",
        created: seconds(Date.now()),
      };
      await this.put(dispute);
      await this.emit("charge.dispute.created", dispute);
      return dispute.id;
    });
  }

  /** The card network decides (Stripe's test evidence "winning_evidence" / "losing_evidence"): charge.dispute.closed follows. */
  async closeDispute(disputeId: string, outcome: "won" | "lost"): Promise<void> {
    const dispute = await this.get<LocalDispute>(disputeId, "dispute");
    if (!dispute) throw this.error(`No such dispute: '${disputeId}'`, "resource_missing", 404);
    const closed: LocalDispute = { ...dispute, status: outcome };
    if (!(await this.replaceIf(disputeId, "status", "needs_response", closed))) throw this.error("This dispute is already closed", "dispute_already_closed");
    await this.emit("charge.dispute.closed", closed);
  }

  // --- Connect Express -----------------------------------------------------------------------

  async createExpressAccount(r: { userId: number; email: string | null; country: "US" | "CA" }) {
    const id = await this.idempotent(`express-account-${r.userId}`, async () => {
      const account: LocalAccount = {
        id: randomId("acct"),
        object: "account",
        type: "express",
        email: r.email,
        country: r.country,
        details_submitted: false,
        payouts_enabled: false,
        charges_enabled: false,
        capabilities: { transfers: "inactive" },
        metadata: { userId: String(r.userId) },
      };
      await this.put(account);
      return account.id;
    });
    return { id };
  }

  async createAccountLink(r: { accountId: string; refreshUrl: string; returnUrl: string }) {
    if (!(await this.get<LocalAccount>(r.accountId, "account"))) throw this.error(`No such account: '${r.accountId}'`, "resource_missing", 404);
    const id = randomId("link");
    const link: LocalAccountLink = {
      id,
      object: "account_link",
      account: r.accountId,
      refresh_url: r.refreshUrl,
      return_url: r.returnUrl,
      url: `${new URL(r.returnUrl).origin}/local-stripe/onboarding/${id}`,
      expires_at: seconds(Date.now() + 30 * 60_000),
    };
    await this.put(link);
    return { url: link.url };
  }

  async accountLink(id: string): Promise<(LocalAccountLink & { accountEmail: string | null }) | undefined> {
    const link = await this.get<LocalAccountLink>(id, "account_link");
    if (!link) return undefined;
    const account = await this.get<LocalAccount>(link.account, "account");
    return { ...link, accountEmail: account?.email ?? null };
  }

  /** The local onboarding page's Submit: the account can now receive transfers; account.updated goes out as Connect sends it. */
  async completeOnboarding(linkId: string, now = Date.now()): Promise<{ redirectUrl: string } | undefined> {
    const link = await this.get<LocalAccountLink>(linkId, "account_link");
    if (!link) return undefined;
    if (link.expires_at < seconds(now)) return { redirectUrl: link.refresh_url };
    const account = (await this.get<LocalAccount>(link.account, "account"))!;
    const updated: LocalAccount = { ...account, details_submitted: true, payouts_enabled: true, charges_enabled: true, capabilities: { transfers: "active" } };
    await this.db.update(localStripeObjects).set({ data: updated, updatedAt: Date.now() }).where(eq(localStripeObjects.id, account.id));
    await this.emit("account.updated", updated, { account: account.id });
    return { redirectUrl: link.return_url };
  }

  async retrieveAccount(accountId: string): Promise<ExpressAccount> {
    const account = await this.get<LocalAccount>(accountId, "account");
    if (!account) throw this.error(`No such account: '${accountId}'`, "resource_missing", 404);
    return {
      id: account.id,
      detailsSubmitted: account.details_submitted,
      payoutsEnabled: account.payouts_enabled && account.capabilities.transfers === "active",
    };
  }

  // --- transfers: recorded as paid out -------------------------------------------------------

  async createTransfer(r: { amountCents: number; destination: string; transferGroup: string; idempotencyKey: string; commissionId: number }) {
    const id = await this.idempotent(r.idempotencyKey, async () => {
      const account = await this.get<LocalAccount>(r.destination, "account");
      if (!account) throw this.error(`No such destination: '${r.destination}'`, "resource_missing", 404);
      if (account.capabilities.transfers !== "active")
        throw this.error("Your destination account needs to have the transfers capability enabled", "insufficient_capabilities_for_transfer");
      const transfer: LocalTransfer = {
        id: randomId("tr"),
        object: "transfer",
        amount: r.amountCents,
        amount_reversed: 0,
        destination: r.destination,
        transfer_group: r.transferGroup,
        metadata: { commissionId: String(r.commissionId) },
      };
      await this.put(transfer);
      return transfer.id;
    });
    return { id };
  }

  async reverseTransfer(r: { transferId: string; amountCents: number; idempotencyKey: string }) {
    const id = await this.idempotent(r.idempotencyKey, async () => {
      const transfer = await this.get<LocalTransfer>(r.transferId, "transfer");
      if (!transfer) throw this.error(`No such transfer: '${r.transferId}'`, "resource_missing", 404);
      if (r.amountCents < 1 || transfer.amount_reversed + r.amountCents > transfer.amount)
        throw this.error("Amount exceeds the transfer's unreversed amount", "amount_too_large");
      const updated = { ...transfer, amount_reversed: transfer.amount_reversed + r.amountCents };
      if (!(await this.replaceIf(transfer.id, "amount_reversed", transfer.amount_reversed, updated))) {
        throw new PaymentsProviderError("The transfer changed meanwhile", "lock_timeout", true, 409);
      }
      const reversalId = randomId("trr");
      await this.put({ id: reversalId, object: "transfer_reversal", amount: r.amountCents, transfer: transfer.id });
      return reversalId;
    });
    return { id };
  }
}
