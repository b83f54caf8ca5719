import { and, eq, sql } from "drizzle-orm";
import { localStripeObjects } from "../../../db/schema";
import { PaymentsProviderError } from "../provider-error";
import type { CheckoutRequest, ExpressAccount, PaymentsProvider, ProviderDeps } from "../types";
import { type CardInput, cardDigits, cardProblem, DISPUTED_TEST_CARD, declineOf } from "./cards";
import { EmulatedConnect } from "./connect";
import { EmulatorEvents } from "./events";
import type { Charge, CheckoutSession, Dispute } from "./objects";
import { EmulatorStore, emulatorId, refusal, seconds } from "./store";

type PayOutcome =
  | { outcome: "succeeded"; redirectUrl: string }
  | { outcome: "declined"; code: string; declineCode: string; message: string }
  | { outcome: "invalid"; field: "number" | "expiry" | "cvc"; message: string }
  | { outcome: "not_open"; status: CheckoutSession["status"]; redirectUrl: string };

/**
 * The Stripe emulator (PAYMENTS_PROVIDER = "local"): Stripe's objects kept in D1
 * (local_stripe_objects), a checkout page and an onboarding page served by this app (the SPA's
 * /local-stripe/* routes over /api/local-stripe/*), and Stripe-shaped signed events handed to
 * `deps.deliverEvent`, the same webhook handler as Stripe's (events.ts). Its Connect side is
 * connect.ts; the cards it knows, cards.ts.
 */
export class StripeEmulator implements PaymentsProvider {
  readonly name = "local" as const;
  private readonly store: EmulatorStore;
  private readonly events: EmulatorEvents;
  private readonly connect: EmulatedConnect;

  constructor(env: Env, deps: ProviderDeps) {
    this.store = new EmulatorStore(env.DB);
    this.events = new EmulatorEvents(this.store, env.STRIPE_WEBHOOK_SECRET, deps);
    this.connect = new EmulatedConnect(this.store, this.events);
  }

  /** The cron: events not yet taken by the handler are delivered again; open sessions past their time expire. */
  async housekeeping(now = Date.now()): Promise<{ redelivered: number; expired: number }> {
    const redelivered = await this.events.redeliverPending(now);
    const overdue = await this.store.db
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
    const id = await this.store.idempotent(`checkout-${r.paymentId}`, async () => {
      const id = emulatorId("cs");
      const metadata = { paymentId: String(r.paymentId), userId: String(r.userId), payerId: String(r.payerId) };
      const session: CheckoutSession = {
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
      await this.store.put(session);
      return id;
    });
    const session = (await this.store.get<CheckoutSession>(id, "checkout.session"))!;
    return { id, url: session.url };
  }

  async checkoutSession(id: string): Promise<CheckoutSession | undefined> {
    return this.store.get<CheckoutSession>(id, "checkout.session");
  }

  private async expireSession(id: string): Promise<boolean> {
    const session = await this.checkoutSession(id);
    if (session?.status !== "open") return false;
    const expired: CheckoutSession = { ...session, status: "expired" };
    if (!(await this.store.replaceIf(id, "status", "open", expired))) return false;
    await this.events.emit("checkout.session.expired", expired);
    return true;
  }

  async expireCheckoutSession(sessionId: string) {
    const session = await this.checkoutSession(sessionId);
    if (!session) throw refusal(`No such checkout.session: '${sessionId}'`, "resource_missing", 404);
    if (!(await this.expireSession(sessionId))) {
      throw refusal('Only Checkout Sessions with a status in ["open"] can be expired.', "checkout_session_not_open");
    }
  }

  /** The checkout page's Pay: Stripe's test cards succeed or decline as Stripe's do; the session stays open after a decline. */
  async payCheckout(sessionId: string, card: CardInput, now = Date.now()): Promise<PayOutcome | undefined> {
    const session = await this.checkoutSession(sessionId);
    if (!session) return undefined;
    if (session.status !== "open") {
      return { outcome: "not_open", status: session.status, redirectUrl: session.status === "complete" ? session.success_url : session.cancel_url };
    }
    const problem = cardProblem(card, now);
    if (problem) return { outcome: "invalid", ...problem };

    const digits = cardDigits(card.number);
    const intentId = session.payment_intent ?? emulatorId("pi");
    const decline = declineOf(digits);
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
      if (!session.payment_intent) await this.store.replaceIf(sessionId, "status", "open", { ...session, payment_intent: intentId });
      await this.events.emit("payment_intent.payment_failed", intent);
      return { outcome: "declined", code: decline.code, declineCode: decline.decline_code, message: decline.message };
    }

    const completed: CheckoutSession = { ...session, status: "complete", payment_status: "paid", payment_intent: intentId };
    if (!(await this.store.replaceIf(sessionId, "status", "open", completed))) {
      const again = (await this.checkoutSession(sessionId))!;
      return { outcome: "not_open", status: again.status, redirectUrl: again.status === "complete" ? again.success_url : again.cancel_url };
    }
    const charge: Charge = {
      id: emulatorId("ch"),
      object: "charge",
      amount: session.amount_total,
      amount_refunded: 0,
      refunded: false,
      payment_intent: intentId,
      metadata: session.local.intent_metadata,
    };
    await this.store.put(charge);
    await this.store.put({
      id: intentId,
      object: "payment_intent",
      amount: session.amount_total,
      currency: session.currency,
      status: "succeeded",
      latest_charge: charge.id,
      transfer_group: session.local.transfer_group,
      metadata: session.local.intent_metadata,
    });
    await this.events.emit("checkout.session.completed", completed);
    if (digits === DISPUTED_TEST_CARD) await this.openDispute(intentId);
    return { outcome: "succeeded", redirectUrl: session.success_url };
  }

  /** The checkout page's "back": like leaving Stripe's page, the driver returns to cancel_url (and the app then expires the session). */
  async cancelUrlOf(sessionId: string): Promise<string | undefined> {
    return (await this.checkoutSession(sessionId))?.cancel_url;
  }

  // --- refunds -------------------------------------------------------------------------------

  async refund(r: { paymentIntentId: string; amountCents: number; idempotencyKey: string; paymentId: number }) {
    const id = await this.store.idempotent(r.idempotencyKey, async () => {
      const intent = await this.store.get<{ latest_charge: string }>(r.paymentIntentId, "payment_intent");
      if (!intent) throw refusal(`No such payment_intent: '${r.paymentIntentId}'`, "resource_missing", 404);
      const charge = (await this.store.get<Charge>(intent.latest_charge, "charge"))!;
      if (r.amountCents < 1 || charge.amount_refunded + r.amountCents > charge.amount) {
        throw refusal(`Refund amount ($${(r.amountCents / 100).toFixed(2)}) is greater than unrefunded amount on charge`, "amount_too_large");
      }
      const updated: Charge = {
        ...charge,
        amount_refunded: charge.amount_refunded + r.amountCents,
        refunded: charge.amount_refunded + r.amountCents === charge.amount,
      };
      if (!(await this.store.replaceIf(charge.id, "amount_refunded", charge.amount_refunded, updated))) {
        throw new PaymentsProviderError("The charge changed meanwhile", "lock_timeout", true, 409);
      }
      const refundId = emulatorId("re");
      await this.store.put({
        id: refundId,
        object: "refund",
        amount: r.amountCents,
        charge: charge.id,
        payment_intent: r.paymentIntentId,
        status: "succeeded",
      });
      await this.events.emit("charge.refunded", updated);
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
    return this.store.idempotent(`dispute-${paymentIntentId}`, async () => {
      const intent = await this.store.get<{ latest_charge: string; currency: string }>(paymentIntentId, "payment_intent");
      if (!intent) throw refusal(`No such payment_intent: '${paymentIntentId}'`, "resource_missing", 404);
      const charge = (await this.store.get<Charge>(intent.latest_charge, "charge"))!;
      if (charge.amount_refunded >= charge.amount) throw refusal("This charge has been fully refunded", "charge_already_refunded");
      const dispute: Dispute = {
        id: emulatorId("dp"),
        object: "dispute",
        amount: charge.amount - charge.amount_refunded,
        currency: intent.currency,
        charge: charge.id,
        payment_intent: paymentIntentId,
        reason,
        status: "needs_response",
        created: seconds(Date.now()),
      };
      await this.store.put(dispute);
      await this.events.emit("charge.dispute.created", dispute);
      return dispute.id;
    });
  }

  /** The card network decides (Stripe's test evidence "winning_evidence" / "losing_evidence"): charge.dispute.closed follows. */
  async closeDispute(disputeId: string, outcome: "won" | "lost"): Promise<void> {
    const dispute = await this.store.get<Dispute>(disputeId, "dispute");
    if (!dispute) throw refusal(`No such dispute: '${disputeId}'`, "resource_missing", 404);
    const closed: Dispute = { ...dispute, status: outcome };
    if (!(await this.store.replaceIf(disputeId, "status", "needs_response", closed))) throw refusal("This dispute is already closed", "dispute_already_closed");
    await this.events.emit("charge.dispute.closed", closed);
  }

  // --- Connect Express and transfers (connect.ts) --------------------------------------------

  createExpressAccount(r: { userId: number; email: string | null; country: "US" | "CA" }) {
    return this.connect.createExpressAccount(r);
  }

  createAccountLink(r: { accountId: string; refreshUrl: string; returnUrl: string }) {
    return this.connect.createAccountLink(r);
  }

  accountLink(id: string) {
    return this.connect.accountLink(id);
  }

  completeOnboarding(linkId: string, now = Date.now()) {
    return this.connect.completeOnboarding(linkId, now);
  }

  retrieveAccount(accountId: string): Promise<ExpressAccount> {
    return this.connect.retrieveAccount(accountId);
  }

  createTransfer(r: { amountCents: number; destination: string; transferGroup: string; idempotencyKey: string; commissionId: number }) {
    return this.connect.createTransfer(r);
  }

  reverseTransfer(r: { transferId: string; amountCents: number; idempotencyKey: string }) {
    return this.connect.reverseTransfer(r);
  }
}
