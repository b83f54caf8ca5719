import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { localStripeObjects, serviceTimeLedger } from "../db/schema";
import { billingAdmin, driver, openCheckout, payLocally, paymentRow, postEvent, stripeEvent, testPlan, userRow } from "../test/billing-fixtures";
import { call, db, json } from "../test/fixtures";
import { DAY_MS } from "./service-time";

async function ledgerOf(userId: number) {
  return db.select().from(serviceTimeLedger).where(eq(serviceTimeLedger.userId, userId)).orderBy(serviceTimeLedger.id);
}

describe("charge.refunded", () => {
  it("removes the refunded share of the unused days, each cumulative amount once", async () => {
    const user = await driver();
    const plan = await testPlan({ days: 10, priceCents: 10_000 });
    const { payment, sessionId } = await openCheckout(user, plan.id);
    await payLocally(sessionId, "4242424242424242");
    const paid = await paymentRow(payment.id);
    const expiration = (await userRow(user.id)).expirationAt!;
    const charge = (refunded: number) => ({ id: "ch_x", object: "charge", payment_intent: paid.paymentIntentId, amount: 10_000, amount_refunded: refunded });

    await postEvent(stripeEvent("charge.refunded", charge(5_000)));
    const half = await userRow(user.id);
    expect(await paymentRow(payment.id)).toMatchObject({ status: "refunded", refundedCents: 5_000 });
    // Half of the (almost entirely unused) ten days.
    expect(expiration - half.expirationAt!).toBeGreaterThan(5 * DAY_MS - 60_000);
    expect(expiration - half.expirationAt!).toBeLessThanOrEqual(5 * DAY_MS);

    // The same amount again (a new event id), and an older smaller amount arriving late: nothing.
    await postEvent(stripeEvent("charge.refunded", charge(5_000)));
    await postEvent(stripeEvent("charge.refunded", charge(2_000)));
    expect((await userRow(user.id)).expirationAt).toBe(half.expirationAt);

    await postEvent(stripeEvent("charge.refunded", charge(10_000)));
    expect((await paymentRow(payment.id)).refundedCents).toBe(10_000);
    const ledger = await ledgerOf(user.id);
    expect(ledger.map((e) => e.kind)).toEqual(["payment", "refund", "refund"]);
    expect((await userRow(user.id)).expirationAt! - Date.now()).toBeLessThan(60_000);
  });
});

describe("refunds from the admin billing API", () => {
  it("refunds through the provider; its event settles the payment and removes the days", async () => {
    const admin = await billingAdmin();
    const user = await driver();
    const { payment, sessionId } = await openCheckout(user, (await testPlan({ days: 7, priceCents: 4000 })).id);
    await payLocally(sessionId, "4242424242424242");
    const res = await call(`/api/admin/billing/payments/${payment.id}/refund`, { token: admin.token, body: {} });
    expect(res.status).toBe(202);
    expect((await json(res)).payment).toMatchObject({ status: "refunded", refundedCents: 4000 });
    expect((await userRow(user.id)).goodStanding).toBe(false);
    // Nothing left to refund.
    expect((await call(`/api/admin/billing/payments/${payment.id}/refund`, { token: admin.token, body: {} })).status).toBe(422);
    const intent = (await paymentRow(payment.id)).paymentIntentId;
    const refunds = await db.select().from(localStripeObjects).where(eq(localStripeObjects.object, "refund"));
    expect(refunds.filter((r) => r.data.payment_intent === intent)).toHaveLength(1);
  });

  it("refuses a refund of a payment that did not succeed, and amounts above what is left", async () => {
    const admin = await billingAdmin();
    const user = await driver();
    const open = await openCheckout(user, (await testPlan()).id);
    expect((await call(`/api/admin/billing/payments/${open.payment.id}/refund`, { token: admin.token, body: {} })).status).toBe(422);
    await payLocally(open.sessionId, "4242424242424242");
    expect((await call(`/api/admin/billing/payments/${open.payment.id}/refund`, { token: admin.token, body: { amountCents: 999_999 } })).status).toBe(422);
    expect((await paymentRow(open.payment.id)).status).toBe("successful");
  });
});
