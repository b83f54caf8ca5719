import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { app } from "../app";
import { serviceTimeLedger } from "../db/schema";
import { checkout, driver, openCheckout, payLocally, paymentRow, testPlan, userRow } from "../test/billing-fixtures";
import { call, db, json } from "../test/fixtures";
import { DAY_MS } from "./service-time";

async function ledgerOf(userId: number) {
  return db.select().from(serviceTimeLedger).where(eq(serviceTimeLedger.userId, userId)).orderBy(serviceTimeLedger.id);
}

const DEFAULT_NAMES = ["1 week", "2 weeks", "4 weeks"];

describe("GET /api/plans", () => {
  it("lists the app's active plans in the owner's order, without signing in", async () => {
    const hidden = await testPlan({ active: false, sortOrder: 0, days: 3 });
    const res = await call("/api/plans?app=flex");
    expect(res.status).toBe(200);
    const body = await json(res);
    // The defaults the migration seeds, in their order (other test files add plans of their own to the shared database).
    const defaults = (items: { name: string; days: number }[]) => items.filter((p) => DEFAULT_NAMES.includes(p.name)).map((p) => p.days);
    expect(defaults(body.Items)).toEqual([7, 14, 28]);
    expect(body.Items.some((p: { id: number }) => p.id === hidden.id)).toBe(false);
    expect(defaults((await json(await call("/api/plans?app=spark"))).Items)).toEqual([7, 14, 28]);
  });
});

describe("checkout with the local provider", () => {
  it("creates a processing payment and a session; the same key answers the same checkout", async () => {
    const user = await driver({ email: "pay@example.com" });
    const plan = await testPlan({ days: 14, priceCents: 7000 });
    const key = crypto.randomUUID();
    const first = await checkout(user, plan.id, { idempotencyKey: key, returnQuery: "utm=sms&payment=999" });
    expect(first.res.status).toBe(201);
    expect(first.body.url).toMatch(new RegExp(`^${env.APP_ORIGIN}/local-stripe/checkout/cs_local_[0-9a-f]{24}$`));
    const again = await checkout(user, plan.id, { idempotencyKey: key, returnQuery: "utm=sms&payment=999" });
    expect(again.body).toEqual(first.body);
    const payment = await paymentRow(first.body.paymentId);
    expect(payment).toMatchObject({ userId: user.id, payerId: user.id, status: "processing", amountCents: 7000, days: 14, provider: "local" });

    const session = await json(await call(`/api/local-stripe/checkout/${payment.providerRef}`));
    expect(session.session).toMatchObject({ status: "open", amountCents: 7000, customerEmail: "pay@example.com" });
    // The query string the driver came with is kept; our own parameters replace any forged ones.
    expect(session.session.cancelUrl).toBe(`${env.APP_ORIGIN}/payment?utm=sms&payment=${payment.id}&canceled=1`);
  });

  it("refuses an unknown or inactive plan, and another app's plan", async () => {
    const user = await driver();
    const inactive = await testPlan({ active: false });
    const spark = await testPlan({ app: "spark" });
    for (const planId of [inactive.id, spark.id, 987654]) expect((await checkout(user, planId)).res.status).toBe(404);
  });

  it("4242 4242 4242 4242 pays: the payment succeeds and the days are added once", async () => {
    const user = await driver({ expirationAt: Date.now() + 2 * DAY_MS, goodStanding: true });
    const plan = await testPlan({ days: 7 });
    const { payment, sessionId } = await openCheckout(user, plan.id, { returnQuery: "a=1" });
    const res = await payLocally(sessionId, "4242 4242 4242 4242");
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toEqual({ status: "complete", redirectUrl: `${env.APP_ORIGIN}/payment?a=1&payment=${payment.id}` });

    const settled = await paymentRow(payment.id);
    expect(settled.status).toBe("successful");
    expect(settled.paymentIntentId).toMatch(/^pi_local_/);
    const after = await userRow(user.id);
    expect(after.expirationAt! - user.expirationAt!).toBe(7 * DAY_MS);
    expect(after.goodStanding).toBe(true);
    expect(await ledgerOf(user.id)).toMatchObject([{ kind: "payment", paymentId: payment.id, deltaMs: 7 * DAY_MS }]);

    // Paying the completed session again changes nothing.
    expect(await json(await payLocally(sessionId, "4242424242424242"))).toMatchObject({ status: "complete" });
    expect((await userRow(user.id)).expirationAt).toBe(after.expirationAt);

    const view = await json(await call(`/api/payments/${payment.id}`, { token: user.token }));
    expect(view.payment).toMatchObject({ status: "successful", days: 7, expirationAt: after.expirationAt });
  });

  it.each([
    ["4000 0000 0000 0002", "generic_decline"],
    ["4000 0000 0000 9995", "insufficient_funds"],
  ])("%s is declined (%s): the session stays open and the payment processing, with the reason", async (card, declineCode) => {
    const user = await driver();
    const { payment, sessionId } = await openCheckout(user, (await testPlan()).id);
    const res = await payLocally(sessionId, card);
    expect(res.status).toBe(422);
    expect((await json(res)).error.details).toEqual({ code: "card_declined", declineCode });
    expect(await paymentRow(payment.id)).toMatchObject({ status: "processing", failureCode: declineCode });
    expect((await userRow(user.id)).expirationAt).toBeNull();
    // Another card on the same session still works, as on Stripe's page.
    expect((await payLocally(sessionId, "4242424242424242")).status).toBe(200);
    expect(await paymentRow(payment.id)).toMatchObject({ status: "successful", failureCode: null });
  });

  it("refuses malformed cards without touching the payment", async () => {
    const user = await driver();
    const { payment, sessionId } = await openCheckout(user, (await testPlan()).id);
    expect((await payLocally(sessionId, "4242 4242 4242 4241")).status).toBe(400);
    expect((await payLocally(sessionId, "4242424242424242", "01 / 20")).status).toBe(400);
    expect((await payLocally(sessionId, "4242424242424242", "12 / 40", "1")).status).toBe(400);
    expect(await paymentRow(payment.id)).toMatchObject({ status: "processing", failureCode: null });
  });

  it("coming back without paying ends the session and fails the payment", async () => {
    const user = await driver();
    const { payment, sessionId } = await openCheckout(user, (await testPlan()).id);
    const back = await json(await call(`/api/local-stripe/checkout/${sessionId}/cancel`, { method: "POST" }));
    expect(back.redirectUrl).toContain(`payment=${payment.id}&canceled=1`);
    const res = await call(`/api/payments/${payment.id}/cancel`, { token: user.token, method: "POST" });
    expect(res.status).toBe(200);
    expect((await json(res)).payment).toMatchObject({ status: "failed", failureCode: "canceled" });
    // The expired session cannot be paid any more.
    expect(await json(await payLocally(sessionId, "4242424242424242"))).toMatchObject({ status: "expired" });
    expect((await paymentRow(payment.id)).status).toBe("failed");
  });

  it("shows a payment only to its driver and its payer", async () => {
    const user = await driver();
    const stranger = await driver();
    const { payment } = await openCheckout(user, (await testPlan()).id);
    expect((await call(`/api/payments/${payment.id}`, { token: stranger.token })).status).toBe(404);
    expect((await call(`/api/payments/${payment.id}/cancel`, { token: stranger.token, method: "POST" })).status).toBe(404);
  });

  it("lists the driver's payments with days, refunds and totals", async () => {
    const user = await driver();
    const plan = await testPlan({ days: 14, priceCents: 7000 });
    const paid = await openCheckout(user, plan.id);
    await payLocally(paid.sessionId, "4242424242424242");
    await openCheckout(user, plan.id);
    const list = await json(await call("/api/payments", { token: user.token }));
    expect(list.total).toBe(2);
    expect(list.rows.map((r: { status: string }) => r.status)).toEqual(["processing", "successful"]);
    expect(list.totals).toMatchObject({ grossCents: 7000, refundedCents: 0, netCents: 7000, daysSold: 14 });
  });
});

describe("the Stripe emulator in production", () => {
  it("is never used: its pages do not exist and checkout refuses rather than give days for test cards", async () => {
    const user = await driver();
    const plan = await testPlan();
    const production: Env = { ...env, ENVIRONMENT: "production", PAYMENTS_PROVIDER: "local" };
    const send = async (path: string, body?: unknown) => {
      const ctx = createExecutionContext();
      const res = await app.fetch(
        new Request(`https://bp.test${path}`, {
          method: body === undefined ? "GET" : "POST",
          headers: { Authorization: `Bearer ${user.token}`, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
        production,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return res;
    };
    const { sessionId } = await openCheckout(user, plan.id);
    // The configuration check (src/worker/config.ts) refuses the embedded provider in production
    // before any route runs: everything answers 503, the log says why, nothing is written.
    expect((await send(`/api/local-stripe/checkout/${sessionId}`)).status).toBe(503);
    expect((await send(`/api/local-stripe/checkout/${sessionId}/pay`, { number: "4242424242424242", expiry: "12 / 40", cvc: "123" })).status).toBe(503);
    expect((await send("/api/payments/checkout", { planId: plan.id, idempotencyKey: crypto.randomUUID() })).status).toBe(503);
    expect((await userRow(user.id)).expirationAt).toBeNull();
  });
});
