import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { payments, plans, referralCodes, resellers, users } from "../db/schema";
import { stripeSignatureHeader } from "../providers/payments/stripe-signature";
import { call, db, json, type SeedOptions, seedUser, tokenFor } from "./fixtures";

/**
 * Test data for the billing tests. Every helper makes fresh rows (users with random phones, plans
 * of their own, unique referral codes), so tests share nothing and run in any order.
 */

export type TestUser = Awaited<ReturnType<typeof seedUser>> & { token: string };

/** A user and an ID token for a fresh session (a real refresh family), without the password round trip. */
export async function driver(options: SeedOptions = {}): Promise<TestUser> {
  const user = await seedUser(options);
  return { ...user, token: await tokenFor(user) };
}

/** A billing administrator (owner role unless told otherwise). */
export function billingAdmin(roleName = "owner", billingDetails = true) {
  return driver({ isAdmin: true, roleName, roleProperties: { billingDetails }, name: `${roleName} admin` });
}

/** A plan of its own for a test, so prices and days are the test's. */
export async function testPlan(values: Partial<typeof plans.$inferInsert> = {}) {
  return db
    .insert(plans)
    .values({ app: "flex", name: "Test week", days: 7, priceCents: 4000, sortOrder: 500, ...values })
    .returning()
    .get();
}

export async function checkout(user: { token: string }, planId: number, extra: Record<string, unknown> = {}) {
  const res = await call("/api/payments/checkout", { token: user.token, body: { planId, idempotencyKey: crypto.randomUUID(), ...extra } });
  return { res, body: await json(res) };
}

/** A checkout through the API; answers the payment row and the local session id. */
export async function openCheckout(user: { token: string }, planId: number, extra: Record<string, unknown> = {}) {
  const { res, body } = await checkout(user, planId, extra);
  if (res.status !== 201) throw new Error(`checkout failed: ${res.status} ${JSON.stringify(body)}`);
  const payment = (await db.select().from(payments).where(eq(payments.id, body.paymentId)).get())!;
  return { payment, sessionId: payment.providerRef!, url: body.url as string };
}

export function payLocally(sessionId: string, number: string, expiry = "12 / 40", cvc = "123") {
  return call(`/api/local-stripe/checkout/${sessionId}/pay`, { body: { number, expiry, cvc } });
}

export async function paymentRow(id: number) {
  return (await db.select().from(payments).where(eq(payments.id, id)).get())!;
}

export async function userRow(id: number) {
  return (await db.select().from(users).where(eq(users.id, id)).get())!;
}

let eventSeq = 0;

/** A Stripe-shaped event of a type, as Stripe would send it. */
export function stripeEvent(type: string, object: Record<string, unknown>, id = `evt_test_${Date.now()}_${++eventSeq}_${crypto.randomUUID().slice(0, 8)}`) {
  return { id, object: "event", api_version: "2026-10-28.endive", created: Math.floor(Date.now() / 1000), data: { object }, livemode: false, type };
}

/** Posts an event to the webhook, signed with the test secret unless told otherwise. */
export async function postEvent(event: object | string, options: { secret?: string; timestamp?: number; signature?: string | null } = {}) {
  const payload = typeof event === "string" ? event : JSON.stringify(event);
  const signature =
    options.signature === undefined ? await stripeSignatureHeader(payload, options.secret ?? env.STRIPE_WEBHOOK_SECRET, options.timestamp) : options.signature;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (signature !== null) headers["Stripe-Signature"] = signature;
  return exports.default.fetch(new Request("https://bp.test/api/webhooks/stripe", { method: "POST", headers, body: payload }));
}

/** A checkout.session object as Stripe sends it for our payment. */
export function sessionObject(payment: { id: number; providerRef: string | null }, overrides: Record<string, unknown> = {}) {
  return {
    id: payment.providerRef,
    object: "checkout.session",
    payment_status: "paid",
    status: "complete",
    payment_intent: `pi_test_${payment.id}`,
    client_reference_id: String(payment.id),
    metadata: { paymentId: String(payment.id) },
    ...overrides,
  };
}

/** An approved reseller with a fresh referral code, and a client who registered with it. */
export async function resellerWithClient(options: { commissionBps?: number; payoutsEnabled?: boolean } = {}) {
  const code = `R${crypto.randomUUID().replace(/-/g, "").slice(0, 10).toUpperCase()}`;
  const reseller = await driver({ name: "Rita Reseller", stripeExpressId: null });
  await db.insert(referralCodes).values({ code, app: "flex", owner: reseller.name, ownerUserId: reseller.id });
  await db.insert(resellers).values({
    userId: reseller.id,
    status: "approved",
    commissionBps: options.commissionBps ?? 2000,
    referralCode: code,
    payoutsEnabled: options.payoutsEnabled ?? false,
    detailsSubmitted: options.payoutsEnabled ?? false,
  });
  const client = await driver({ name: "Carl Client", referralCode: code });
  return { reseller, client, code };
}

/** The reseller pays a client's plan on the local checkout; the payment it opened. */
export async function payForClient(reseller: { token: string }, clientId: number, priceCents = 10_000) {
  const { payment, sessionId } = await openCheckout(reseller, (await testPlan({ priceCents })).id, {
    forUserId: clientId,
    returnPath: "/flex/reseller",
  });
  const paid = await payLocally(sessionId, "4242424242424242");
  if (paid.status !== 200) throw new Error(`the local checkout answered ${paid.status}`);
  return payment;
}
