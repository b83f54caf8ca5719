import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { serviceTimeLedger, stripeEvents } from "../db/schema";
import { createLogger } from "../log";
import { stripeSignatureHeader } from "../providers/payments/stripe-signature";
import { driver, openCheckout, paymentRow, postEvent, sessionObject, stripeEvent, testPlan, userRow } from "../test/billing-fixtures";
import { db, json } from "../test/fixtures";
import { billingContextOf } from "./run-context";
import { receiveStripeWebhook } from "./stripe-webhook";

async function ledgerOf(userId: number) {
  return db.select().from(serviceTimeLedger).where(eq(serviceTimeLedger.userId, userId)).orderBy(serviceTimeLedger.id);
}

describe("POST /api/webhooks/stripe", () => {
  async function paidEvent() {
    const user = await driver();
    const { payment } = await openCheckout(user, (await testPlan({ days: 7 })).id);
    return { user, payment, event: stripeEvent("checkout.session.completed", sessionObject(payment)) };
  }

  it("refuses a missing, wrong, foreign-secret or stale signature before reading anything", async () => {
    const { payment, event } = await paidEvent();
    expect((await postEvent(event, { signature: null })).status).toBe(401);
    expect((await postEvent(event, { signature: "t=1,v1=deadbeef" })).status).toBe(403);
    expect((await postEvent(event, { secret: "whsec_someone_else" })).status).toBe(403);
    expect((await postEvent(event, { timestamp: Math.floor(Date.now() / 1000) - 301 })).status).toBe(403);
    // A valid signature of another body: this body was altered on the way.
    const genuine = await stripeSignatureHeader(JSON.stringify({ ...event, id: "evt_other" }), env.STRIPE_WEBHOOK_SECRET);
    expect((await postEvent(event, { signature: genuine })).status).toBe(403);
    expect(await db.select().from(stripeEvents).where(eq(stripeEvents.id, event.id))).toEqual([]);
    expect((await paymentRow(payment.id)).status).toBe("processing");
  });

  it("acts on an event once: a replay of the same signed request is a duplicate", async () => {
    const { user, payment, event } = await paidEvent();
    const first = await postEvent(event);
    expect(first.status).toBe(200);
    expect(await json(first)).toEqual({ received: true, result: "processed" });
    const replay = await postEvent(event);
    expect(await json(replay)).toEqual({ received: true, result: "duplicate" });
    expect((await paymentRow(payment.id)).status).toBe("successful");
    expect(await ledgerOf(user.id)).toHaveLength(1);
  });

  it("the same event five times at once extends the service once", async () => {
    const { user, payment, event } = await paidEvent();
    const answers = await Promise.all(Array.from({ length: 5 }, () => postEvent(event)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect((await paymentRow(payment.id)).status).toBe("successful");
    const ledger = await ledgerOf(user.id);
    expect(ledger).toHaveLength(1);
    expect((await userRow(user.id)).expirationAt).toBe(ledger[0]!.expirationAfter);
  });

  it("five different events for the same payment at once (a redelivery under a new id) extend once", async () => {
    const { user, payment } = await paidEvent();
    await Promise.all(Array.from({ length: 5 }, () => postEvent(stripeEvent("checkout.session.completed", sessionObject(payment)))));
    expect(await ledgerOf(user.id)).toHaveLength(1);
  });

  it("a completed session not yet paid waits for async_payment_succeeded; async_payment_failed fails it", async () => {
    const { user, payment } = await paidEvent();
    await postEvent(stripeEvent("checkout.session.completed", sessionObject(payment, { payment_status: "unpaid" })));
    expect((await paymentRow(payment.id)).status).toBe("processing");
    await postEvent(stripeEvent("checkout.session.async_payment_succeeded", sessionObject(payment)));
    expect((await paymentRow(payment.id)).status).toBe("successful");
    expect(await ledgerOf(user.id)).toHaveLength(1);

    const other = await paidEvent();
    await postEvent(stripeEvent("checkout.session.async_payment_failed", sessionObject(other.payment, { payment_status: "unpaid" })));
    expect(await paymentRow(other.payment.id)).toMatchObject({ status: "failed", failureCode: "async_payment_failed" });
  });

  it("expired fails a processing payment, but never one already paid (events out of order)", async () => {
    const { payment } = await paidEvent();
    await postEvent(stripeEvent("checkout.session.expired", sessionObject(payment, { status: "expired", payment_status: "unpaid" })));
    expect((await paymentRow(payment.id)).status).toBe("failed");

    const late = await paidEvent();
    await postEvent(stripeEvent("checkout.session.completed", sessionObject(late.payment)));
    await postEvent(stripeEvent("checkout.session.expired", sessionObject(late.payment, { status: "expired" })));
    expect((await paymentRow(late.payment.id)).status).toBe("successful");
  });

  it("ignores an event for a session that is not the payment's", async () => {
    const { user, payment } = await paidEvent();
    const res = await postEvent(stripeEvent("checkout.session.completed", sessionObject(payment, { id: "cs_test_forged" })));
    expect(res.status).toBe(200);
    expect((await paymentRow(payment.id)).status).toBe("processing");
    expect(await ledgerOf(user.id)).toHaveLength(0);
  });

  it("in production ignores a test-mode event (200, nothing changes) and acts on a live one", async () => {
    const { user, payment, event } = await paidEvent();
    const inProduction = billingContextOf({ env: { ...env, ENVIRONMENT: "production" }, db, log: createLogger(), waitUntil: () => {} });
    const receive = async (body: object) => {
      const payload = JSON.stringify(body);
      return receiveStripeWebhook(inProduction, payload, await stripeSignatureHeader(payload, env.STRIPE_WEBHOOK_SECRET));
    };
    expect(await receive(event)).toEqual({ result: "ignored", type: "checkout.session.completed", eventId: event.id });
    expect(await db.select().from(stripeEvents).where(eq(stripeEvents.id, event.id))).toEqual([]);
    expect((await paymentRow(payment.id)).status).toBe("processing");
    expect(await ledgerOf(user.id)).toHaveLength(0);
    // The same payment's live event is Stripe's money.
    const live = { ...stripeEvent("checkout.session.completed", sessionObject(payment)), livemode: true };
    expect(await receive(live)).toMatchObject({ result: "processed" });
    expect((await paymentRow(payment.id)).status).toBe("successful");
    expect(await ledgerOf(user.id)).toHaveLength(1);
  });

  it("answers 200 to event types it does not handle, and to a signed event missing our fields", async () => {
    expect(await json(await postEvent(stripeEvent("customer.created", { id: "cus_1" })))).toMatchObject({ result: "ignored" });
    expect(await json(await postEvent(stripeEvent("checkout.session.completed", { id: "cs_x" })))).toMatchObject({ result: "ignored" });
  });
});
