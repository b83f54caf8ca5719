/**
 * The real Stripe adapter (the official package, fetch HTTP client) against the fake Stripe API
 * over HTTP, through our own API and webhook with PAYMENTS_PROVIDER = "stripe".
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { app } from "../../app";
import { DAY_MS } from "../../billing/service-time";
import { commissions, resellers, users } from "../../db/schema";
import { billingAdmin, driver, paymentRow, resellerWithClient, stripeEvent, testPlan, userRow } from "../../test/billing-fixtures";
import { db, json, uniqueAddress } from "../../test/fixtures";
import { StripePayments } from "./stripe";
import { stripeSignatureHeader } from "./stripe-signature";

type Recorded = { method: string; path: string; idempotencyKey: string | null; params: Record<string, unknown> };
// The fake's objects, as loosely as the tests read them.
type FakeObject = { id: string; payment_intent?: string; latest_charge?: string; amount_reversed?: number } & Record<string, unknown>;

/** A Stripe account of its own on the fake API (its secret key is the tenant), and our Worker configured for it. */
function stripeAccount() {
  const key = `sk_test_${crypto.randomUUID().replace(/-/g, "")}`;
  const stripeEnv: Env = { ...env, PAYMENTS_PROVIDER: "stripe", STRIPE_API_BASE: env.FAKE_STRIPE_URL, STRIPE_SECRET_KEY: key };
  const control = async (path: string, init?: RequestInit) => {
    const res = await fetch(`${env.FAKE_STRIPE_URL}/__control/${key}/${path}`, init);
    return (await res.json()) as FakeObject & { requests?: Recorded[] };
  };
  async function call(path: string, options: { token?: string; body?: unknown; method?: string; headers?: Record<string, string>; raw?: string } = {}) {
    const headers: Record<string, string> = { "CF-Connecting-IP": uniqueAddress(), ...options.headers };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    if (options.token) headers.Authorization = `Bearer ${options.token}`;
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request(`https://bp.test${path}`, {
        method: options.method ?? (options.body === undefined && options.raw === undefined ? "GET" : "POST"),
        headers,
        body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
      }),
      stripeEnv,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return res;
  }
  async function postEvent(event: object) {
    const payload = JSON.stringify(event);
    return call("/api/webhooks/stripe", { raw: payload, headers: { "Stripe-Signature": await stripeSignatureHeader(payload, env.STRIPE_WEBHOOK_SECRET) } });
  }
  return {
    key,
    env: stripeEnv,
    call,
    postEvent,
    requests: async (path?: string) => (await control("requests")).requests!.filter((r) => !path || r.path === path),
    pay: (sessionId: string) => control(`sessions/${sessionId}/pay`, { method: "POST" }),
    enable: (accountId: string) => control(`accounts/${accountId}/enable`, { method: "POST" }),
    object: (id: string) => control(`objects/${id}`),
    faults: (script: { status: number }[]) => control("faults", { method: "POST", body: JSON.stringify({ script }) }),
  };
}

describe("StripePayments against the fake Stripe API", () => {
  it("creates a Checkout Session in payment mode with our payment id, price data and an idempotency key", async () => {
    const stripe = stripeAccount();
    const provider = new StripePayments(stripe.env);
    const request = {
      paymentId: 4242,
      userId: 7,
      payerId: 7,
      amountCents: 3999,
      currency: "usd" as const,
      productName: "Blockpilot Flex: 7 days",
      description: "7 days of service for Dana",
      customerEmail: "dana@example.com",
      successUrl: "https://app.test/payment?payment=4242",
      cancelUrl: "https://app.test/payment?payment=4242&canceled=1",
      expiresAt: Date.now() + 3_600_000,
      transferGroup: "payment_4242",
    };
    const session = await provider.createCheckoutSession(request);
    expect(session.url).toBe(`${env.FAKE_STRIPE_URL}/pay/${session.id}`);
    // A retried call (the same payment) answers the same session.
    expect(await provider.createCheckoutSession(request)).toEqual(session);
    const [created] = await stripe.requests("/v1/checkout/sessions");
    expect(created!.idempotencyKey).toBe("checkout-4242");
    expect(created!.params).toMatchObject({
      mode: "payment",
      client_reference_id: "4242",
      customer_email: "dana@example.com",
      metadata: { paymentId: "4242", userId: "7", payerId: "7" },
      payment_intent_data: { metadata: { paymentId: "4242" }, transfer_group: "payment_4242" },
      line_items: [{ quantity: "1", price_data: { currency: "usd", unit_amount: "3999", product_data: { name: "Blockpilot Flex: 7 days" } } }],
    });
  });

  it("a driver pays through Stripe Checkout: the signed event settles the payment; an admin refunds and Stripe's event removes the days", async () => {
    const stripe = stripeAccount();
    const user = await driver();
    const admin = await billingAdmin();
    const plan = await testPlan({ days: 7, priceCents: 4000 });
    const res = await stripe.call("/api/payments/checkout", { token: user.token, body: { planId: plan.id, idempotencyKey: crypto.randomUUID() } });
    expect(res.status).toBe(201);
    const { paymentId, url } = await json(res);
    const payment = await paymentRow(paymentId);
    expect(payment).toMatchObject({ provider: "stripe", status: "processing" });
    expect(url).toBe(`${env.FAKE_STRIPE_URL}/pay/${payment.providerRef}`);

    const paidSession = await stripe.pay(payment.providerRef!);
    expect((await stripe.postEvent(stripeEvent("checkout.session.completed", paidSession))).status).toBe(200);
    expect(await paymentRow(paymentId)).toMatchObject({ status: "successful", paymentIntentId: paidSession.payment_intent });
    const paidUntil = (await userRow(user.id)).expirationAt!;
    expect(paidUntil - Date.now()).toBeGreaterThan(7 * DAY_MS - 60_000);

    const refund = await stripe.call(`/api/admin/billing/payments/${paymentId}/refund`, { token: admin.token, body: { amountCents: 2000 } });
    expect(refund.status).toBe(202);
    const [refundCall] = await stripe.requests("/v1/refunds");
    expect(refundCall).toMatchObject({ idempotencyKey: `refund-${paymentId}-0-2000`, params: { payment_intent: paidSession.payment_intent, amount: "2000" } });
    // Stripe's own event settles our row.
    expect((await paymentRow(paymentId)).status).toBe("successful");
    const intent = await stripe.object(paidSession.payment_intent!);
    const charge = await stripe.object(intent.latest_charge!);
    await stripe.postEvent(stripeEvent("charge.refunded", charge));
    expect(await paymentRow(paymentId)).toMatchObject({ status: "refunded", refundedCents: 2000 });
    const removed = paidUntil - (await userRow(user.id)).expirationAt!;
    expect(removed).toBeGreaterThan(3.5 * DAY_MS - 60_000);
    expect(removed).toBeLessThanOrEqual(3.5 * DAY_MS);
  });

  it("going back from Stripe expires the session; a Stripe outage answers 503 and fails the payment", async () => {
    const stripe = stripeAccount();
    const user = await driver();
    const plan = await testPlan();
    const { paymentId } = await json(
      await stripe.call("/api/payments/checkout", { token: user.token, body: { planId: plan.id, idempotencyKey: crypto.randomUUID() } }),
    );
    const canceled = await stripe.call(`/api/payments/${paymentId}/cancel`, { token: user.token, method: "POST" });
    expect((await json(canceled)).payment).toMatchObject({ status: "failed", failureCode: "canceled" });
    expect(await stripe.requests(`/v1/checkout/sessions/${(await paymentRow(paymentId)).providerRef}/expire`)).toHaveLength(1);

    // The library retries twice on 5xx (same idempotency key); three failures in a row are an outage.
    await stripe.faults([{ status: 500 }, { status: 500 }, { status: 500 }]);
    const down = await stripe.call("/api/payments/checkout", { token: user.token, body: { planId: plan.id, idempotencyKey: crypto.randomUUID() } });
    expect(down.status).toBe(503);
    expect((await json(down)).error.message).toMatch(/Couldn't start payment process/);
    const attempts = await stripe.requests("/v1/checkout/sessions");
    expect(attempts.slice(-3).map((r) => r.idempotencyKey)).toEqual(Array(3).fill(attempts.at(-1)!.idempotencyKey));

    // One 429 is retried by the library and the checkout goes through.
    await stripe.faults([{ status: 429 }]);
    expect((await stripe.call("/api/payments/checkout", { token: user.token, body: { planId: plan.id, idempotencyKey: crypto.randomUUID() } })).status).toBe(
      201,
    );
  });

  it("a reseller onboards Connect Express; a client's payment transfers the commission, and a refund reverses it", async () => {
    const stripe = stripeAccount();
    const { reseller, client } = await resellerWithClient({ commissionBps: 2500 });
    const onboarding = await stripe.call("/api/reseller/onboarding", { token: reseller.token, method: "POST" });
    expect(onboarding.status).toBe(200);
    const { accountId, url } = await json(onboarding);
    expect(url).toBe(`${env.FAKE_STRIPE_URL}/onboard/${accountId}`);
    const [accountCall] = await stripe.requests("/v1/accounts");
    expect(accountCall).toMatchObject({
      idempotencyKey: `express-account-${reseller.id}`,
      params: { type: "express", capabilities: { transfers: { requested: "true" } } },
    });
    const [linkCall] = await stripe.requests("/v1/account_links");
    expect(linkCall!.params).toMatchObject({ account: accountId, type: "account_onboarding", return_url: `${env.APP_ORIGIN}/flex/reseller?onboarding=return` });

    // Not onboarded yet: a client's payment records the commission, which waits.
    const plan = await testPlan({ priceCents: 8000 });
    const pay = async () => {
      const { paymentId } = await json(
        await stripe.call("/api/payments/checkout", {
          token: reseller.token,
          body: { planId: plan.id, idempotencyKey: crypto.randomUUID(), forUserId: client.id },
        }),
      );
      const session = await stripe.pay((await paymentRow(paymentId)).providerRef!);
      await stripe.postEvent(stripeEvent("checkout.session.completed", session));
      return { paymentId, session };
    };
    const first = await pay();
    const waiting = (await db.select().from(commissions).where(eq(commissions.paymentId, first.paymentId)).get())!;
    expect(waiting).toMatchObject({ amountCents: 2000, status: "pending", lastError: "awaiting_onboarding", resellerId: reseller.id, clientId: client.id });

    await stripe.enable(accountId);
    const refreshed = await stripe.call("/api/reseller/onboarding/refresh", { token: reseller.token, method: "POST" });
    expect((await json(refreshed)).onboarding).toEqual({ detailsSubmitted: true, payoutsEnabled: true });
    expect((await db.select().from(resellers).where(eq(resellers.userId, reseller.id)).get())!.payoutsEnabled).toBe(true);
    const paidOut = (await db.select().from(commissions).where(eq(commissions.id, waiting.id)).get())!;
    expect(paidOut).toMatchObject({ status: "paid", transferredCents: 2000 });
    const [transferCall] = await stripe.requests("/v1/transfers");
    expect(transferCall).toMatchObject({
      idempotencyKey: `commission-${waiting.id}-transfer`,
      params: { amount: "2000", currency: "usd", destination: accountId, transfer_group: `payment_${first.paymentId}` },
    });

    // A full refund of the client's payment reverses the whole commission.
    const intent = await stripe.object(first.session.payment_intent!);
    await stripe.call(`/api/admin/billing/payments/${first.paymentId}/refund`, { token: (await billingAdmin()).token, body: {} });
    await stripe.postEvent(stripeEvent("charge.refunded", await stripe.object(intent.latest_charge!)));
    expect((await db.select().from(commissions).where(eq(commissions.id, waiting.id)).get())!).toMatchObject({ status: "reversed", reversedCents: 2000 });
    const [reversal] = await stripe.requests(`/v1/transfers/${paidOut.transferId}/reversals`);
    expect(reversal).toMatchObject({ idempotencyKey: `commission-${waiting.id}-reversal-2000`, params: { amount: "2000" } });
    expect((await stripe.object(paidOut.transferId!)).amount_reversed).toBe(2000);
  });

  it("account.updated signed with the Connect endpoint's secret enables payouts", async () => {
    const { reseller } = await resellerWithClient();
    const accountId = `acct_test_${crypto.randomUUID().slice(0, 8)}`;
    await db.update(users).set({ stripeExpressId: accountId }).where(eq(users.id, reseller.id));
    const event = {
      ...stripeEvent("account.updated", {
        id: accountId,
        object: "account",
        details_submitted: true,
        payouts_enabled: true,
        capabilities: { transfers: "active" },
      }),
      account: accountId,
    };
    const payload = JSON.stringify(event);
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request("https://bp.test/api/webhooks/stripe", {
        method: "POST",
        headers: { "Stripe-Signature": await stripeSignatureHeader(payload, env.STRIPE_CONNECT_WEBHOOK_SECRET) },
        body: payload,
      }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
    expect((await db.select().from(resellers).where(eq(resellers.userId, reseller.id)).get())!).toMatchObject({ payoutsEnabled: true, detailsSubmitted: true });
  });
});
