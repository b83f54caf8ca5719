import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { commissions, invitations, localStripeObjects, serviceTimeLedger, stripeEvents, users } from "../db/schema";
import { createLogger } from "../log";
import { DISPUTED_TEST_CARD } from "../providers/payments/stripe-emulator/cards";
import {
  billingAdmin,
  driver,
  openCheckout,
  payLocally,
  paymentRow,
  postEvent,
  resellerWithClient,
  stripeEvent,
  testPlan,
  userRow,
} from "../test/billing-fixtures";
import { call, db, json, PASSWORD, tokenFor, uniquePhone } from "../test/fixtures";
import { stripeEmulator } from "./payments-provider";
import { billingContextOf } from "./run-context";
import { DAY_MS } from "./service-time";

/** The Stripe emulator, as the app builds it; what it leaves running is awaited by `settled()`. */
function localProvider() {
  const pending: Promise<unknown>[] = [];
  const provider = stripeEmulator(billingContextOf({ env, db, log: createLogger({ test: "disputes" }), waitUntil: (p) => pending.push(p) }));
  return { provider, settled: () => Promise.all(pending) };
}

async function ledgerOf(userId: number) {
  return db.select().from(serviceTimeLedger).where(eq(serviceTimeLedger.userId, userId)).orderBy(serviceTimeLedger.id);
}

async function commissionOf(paymentId: number) {
  return db.select().from(commissions).where(eq(commissions.paymentId, paymentId)).get();
}

/** A driver with a week of paid service, paid on the local checkout. */
async function paidWeek(user?: Awaited<ReturnType<typeof driver>>, priceCents = 7000) {
  const payer = user ?? (await driver());
  const { payment, sessionId } = await openCheckout(payer, (await testPlan({ days: 7, priceCents })).id);
  expect((await payLocally(sessionId, "4242424242424242")).status).toBe(200);
  return { user: payer, payment: await paymentRow(payment.id) };
}

/** A Stripe dispute object for a payment intent. */
function disputeObject(paymentIntentId: string, overrides: Record<string, unknown> = {}) {
  return {
    id: `dp_test_${crypto.randomUUID().slice(0, 12)}`,
    object: "dispute",
    amount: 7000,
    charge: "ch_x",
    payment_intent: paymentIntentId,
    status: "needs_response",
    ...overrides,
  };
}

describe("charge.dispute.created", () => {
  it("takes back the unused days like a full refund, once per dispute whatever is redelivered", async () => {
    const { user, payment } = await paidWeek();
    const expiration = (await userRow(user.id)).expirationAt!;
    const dispute = disputeObject(payment.paymentIntentId!);
    const event = stripeEvent("charge.dispute.created", dispute);

    expect(await json(await postEvent(event))).toEqual({ received: true, result: "processed" });
    expect(await paymentRow(payment.id)).toMatchObject({ status: "successful", disputeId: dispute.id, disputeStatus: "open", disputedCents: 7000 });
    const after = await userRow(user.id);
    // The whole week was unused: it is gone (to within the test's own run time).
    expect(expiration - after.expirationAt!).toBeGreaterThan(7 * DAY_MS - 60_000);
    expect(after.expirationAt! - Date.now()).toBeLessThan(60_000);
    expect((await ledgerOf(user.id)).map((e) => [e.kind, e.paymentId])).toEqual([
      ["payment", payment.id],
      ["dispute", payment.id],
    ]);

    // The same event again is a duplicate; the same dispute under a new event id changes nothing.
    expect(await json(await postEvent(event))).toEqual({ received: true, result: "duplicate" });
    await postEvent(stripeEvent("charge.dispute.created", dispute));
    expect(await ledgerOf(user.id)).toHaveLength(2);
    expect((await userRow(user.id)).expirationAt).toBe(after.expirationAt);

    // The driver's history says so, and the money is not counted as kept.
    const list = await json(await call("/api/payments", { token: user.token }));
    expect(list.rows[0]).toMatchObject({ id: payment.id, status: "successful", disputeStatus: "open", disputedCents: 7000 });
    expect(list.totals).toMatchObject({ grossCents: 7000, refundedCents: 0, disputedCents: 7000, netCents: 0 });
  });

  it("reverses the reseller's commission transfer like a refund", async () => {
    const { reseller, client } = await resellerWithClient({ commissionBps: 2000 });
    // Payout setup on the local provider's onboarding page, so the commission is transferred.
    const started = await json(await call("/api/reseller/onboarding", { token: reseller.token, method: "POST" }));
    await call(`/api/local-stripe/onboarding/${started.url.split("/").at(-1)}/complete`, { method: "POST" });
    const { payment } = await paidWeek(client, 10_000);
    await vi.waitFor(async () => expect(await commissionOf(payment.id)).toMatchObject({ status: "paid", transferredCents: 2000 }));

    await postEvent(stripeEvent("charge.dispute.created", disputeObject(payment.paymentIntentId!, { amount: 10_000 })));
    await vi.waitFor(async () => expect(await commissionOf(payment.id)).toMatchObject({ status: "reversed", reversalDueCents: 2000, reversedCents: 2000 }));
    const transfer = (await db
      .select()
      .from(localStripeObjects)
      .where(eq(localStripeObjects.id, (await commissionOf(payment.id))!.transferId!))
      .get())!;
    expect(transfer.data).toMatchObject({ amount: 2000, amount_reversed: 2000 });
  });

  it("the local provider's disputed test card pays, then disputes, with signed events through the same webhook", async () => {
    const user = await driver();
    const { payment, sessionId } = await openCheckout(user, (await testPlan({ days: 7 })).id);
    expect((await payLocally(sessionId, DISPUTED_TEST_CARD.replace(/(\d{4})(?=\d)/g, "$1 "))).status).toBe(200);
    const row = await paymentRow(payment.id);
    expect(row).toMatchObject({ status: "successful", disputeStatus: "open" });
    expect(row.disputeId).toMatch(/^dp_local_/);
    const handled = await db.select().from(stripeEvents).where(eq(stripeEvents.type, "charge.dispute.created")).all();
    expect(handled.some((e) => e.status === "processed")).toBe(true);
    expect((await ledgerOf(user.id)).map((e) => e.kind)).toEqual(["payment", "dispute"]);
    // A disputed charge cannot also be refunded.
    const admin = await billingAdmin();
    expect((await call(`/api/admin/billing/payments/${payment.id}/refund`, { token: admin.token, body: {} })).status).toBe(422);
  });
});

describe("charge.dispute.closed", () => {
  it("won: the days the dispute took come back, once; the ledger shows both", async () => {
    const { user, payment } = await paidWeek();
    const { provider, settled } = localProvider();
    const disputeId = await provider.openDispute(payment.paymentIntentId!);
    await settled();
    const taken = await userRow(user.id);
    await provider.closeDispute(disputeId, "won");
    await settled();
    expect(await paymentRow(payment.id)).toMatchObject({ disputeStatus: "won" });
    const ledger = await ledgerOf(user.id);
    expect(ledger.map((e) => e.kind)).toEqual(["payment", "dispute", "dispute_won"]);
    expect(ledger[2]!.deltaMs).toBe(-ledger[1]!.deltaMs);
    expect(ledger[2]!.deltaMs).toBeGreaterThan(7 * DAY_MS - 60_000);
    expect(ledger[2]!.expirationBefore).toBe(taken.expirationAt);
    expect((await userRow(user.id)).expirationAt).toBe(ledger[2]!.expirationAfter);

    // Closed again (a new event id): nothing more.
    await postEvent(stripeEvent("charge.dispute.closed", disputeObject(payment.paymentIntentId!, { id: disputeId, status: "won" })));
    expect(await ledgerOf(user.id)).toHaveLength(3);
    // The driver's own ledger names each change.
    const mine = await json(await call("/api/payments/service-time", { token: user.token }));
    expect(mine.rows.map((r: { kind: string }) => r.kind)).toEqual(["dispute_won", "dispute", "payment"]);
  });

  it("lost: the days stay taken back", async () => {
    const { user, payment } = await paidWeek();
    const { provider, settled } = localProvider();
    const disputeId = await provider.openDispute(payment.paymentIntentId!);
    await settled();
    const taken = (await userRow(user.id)).expirationAt;
    await provider.closeDispute(disputeId, "lost");
    await settled();
    expect(await paymentRow(payment.id)).toMatchObject({ disputeStatus: "lost" });
    expect((await userRow(user.id)).expirationAt).toBe(taken);
    expect((await ledgerOf(user.id)).map((e) => e.kind)).toEqual(["payment", "dispute"]);
  });
});

describe("the free week after the fact", () => {
  async function invitedFriend() {
    const inviter = await driver({ expirationAt: Date.now() + 30 * DAY_MS, goodStanding: true });
    const phone = uniquePhone();
    const invited = await call("/api/invitations", { token: inviter.token, body: { phoneNumber: phone } });
    expect(invited.status, await invited.clone().text()).toBe(201);
    const res = await call("/api/auth/register", {
      body: { phoneNumber: phone, password: PASSWORD, name: "Fran Friend", app: "flex", referralCode: inviter.inviteCode, language: "en" },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const friend = (await db
      .select()
      .from(users)
      .where(and(eq(users.app, "flex"), eq(users.phone, phone)))
      .get())!;
    await db.update(users).set({ phoneVerified: true }).where(eq(users.id, friend.id));
    const token = await tokenFor({ ...friend, phoneVerified: true });
    const { payment } = await paidWeek({ ...friend, phoneVerified: true, token, password: PASSWORD } as Awaited<ReturnType<typeof driver>>);
    const earned = (await userRow(inviter.id)).expirationAt!;
    expect(earned - inviter.expirationAt!).toBe(7 * DAY_MS);
    return { inviter, friend, payment, earned };
  }

  async function inviterWeeks(inviterId: number) {
    return (await ledgerOf(inviterId)).map((e) => [e.kind, e.deltaMs]);
  }

  it("is taken back when the qualifying payment is refunded in full (not for a part)", async () => {
    const { inviter, payment, earned } = await invitedFriend();
    const admin = await billingAdmin();
    expect((await call(`/api/admin/billing/payments/${payment.id}/refund`, { token: admin.token, body: { amountCents: 1000 } })).status).toBe(202);
    expect((await userRow(inviter.id)).expirationAt).toBe(earned);
    expect((await call(`/api/admin/billing/payments/${payment.id}/refund`, { token: admin.token, body: {} })).status).toBe(202);
    expect(await inviterWeeks(inviter.id)).toEqual([
      ["free_week", 7 * DAY_MS],
      ["free_week_reversed", -7 * DAY_MS],
    ]);
    expect((await userRow(inviter.id)).expirationAt).toBe(inviter.expirationAt);
    expect((await db.select().from(invitations).where(eq(invitations.inviterId, inviter.id)).get())!.freeWeek).toBe(false);
    const mine = await json(await call("/api/payments/service-time", { token: inviter.token }));
    expect(mine.rows[0]).toMatchObject({ kind: "free_week_reversed", reason: "The invited friend's payment was refunded" });
  });

  it("is taken back when the qualifying payment is disputed, once, and not earned again by a later payment", async () => {
    const { inviter, friend, payment } = await invitedFriend();
    const dispute = disputeObject(payment.paymentIntentId!);
    await postEvent(stripeEvent("charge.dispute.created", dispute));
    await postEvent(stripeEvent("charge.dispute.created", dispute));
    expect(await inviterWeeks(inviter.id)).toEqual([
      ["free_week", 7 * DAY_MS],
      ["free_week_reversed", -7 * DAY_MS],
    ]);
    expect((await userRow(inviter.id)).expirationAt).toBe(inviter.expirationAt);
    // Another payment of the friend is not the qualifying one: refunding it takes nothing more.
    const token = await tokenFor({ ...friend, phoneVerified: true });
    const second = await paidWeek({ ...friend, phoneVerified: true, token, password: PASSWORD } as Awaited<ReturnType<typeof driver>>);
    expect(await inviterWeeks(inviter.id)).toHaveLength(2);
    await postEvent(stripeEvent("charge.dispute.created", disputeObject(second.payment.paymentIntentId!)));
    expect(await inviterWeeks(inviter.id)).toHaveLength(2);
  });
});
