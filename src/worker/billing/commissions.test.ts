import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { commissions, localStripeObjects, resellers, users } from "../db/schema";
import { billingAdmin, payForClient, resellerWithClient } from "../test/billing-fixtures";
import { call, db, json } from "../test/fixtures";

async function commissionOf(paymentId: number) {
  return db.select().from(commissions).where(eq(commissions.paymentId, paymentId)).get();
}

async function localObject(id: string) {
  return (await db.select().from(localStripeObjects).where(eq(localStripeObjects.id, id)).get())?.data;
}

describe("commissions", () => {
  it("waits for payout setup, is transferred once onboarding completes, and is reversed on refund", async () => {
    const { reseller, client } = await resellerWithClient({ commissionBps: 2000 });
    const admin = await billingAdmin();
    const payment = await payForClient(client, client.id, 10_000);
    // The transfer is tried after the answer: it waits for the reseller's payout setup.
    await vi.waitFor(async () =>
      expect(await commissionOf(payment.id)).toMatchObject({ amountCents: 2000, status: "pending", lastError: "awaiting_onboarding", transferId: null }),
    );

    // Payout setup on the local provider's onboarding page.
    const started = await json(await call("/api/reseller/onboarding", { token: reseller.token, method: "POST" }));
    expect(started.url).toMatch(new RegExp(`^${env.APP_ORIGIN}/local-stripe/onboarding/link_local_[0-9a-f]{24}$`));
    expect((await db.select().from(users).where(eq(users.id, reseller.id)).get())!.stripeExpressId).toBe(started.accountId);
    const linkId = started.url.split("/").at(-1);
    expect((await json(await call(`/api/local-stripe/onboarding/${linkId}`))).link).toMatchObject({ account: started.accountId });
    const done = await json(await call(`/api/local-stripe/onboarding/${linkId}/complete`, { method: "POST" }));
    expect(done.redirectUrl).toBe(`${env.APP_ORIGIN}/flex/reseller?onboarding=return`);
    expect((await db.select().from(resellers).where(eq(resellers.userId, reseller.id)).get())!.payoutsEnabled).toBe(true);

    await vi.waitFor(async () => expect(await commissionOf(payment.id)).toMatchObject({ status: "paid", transferredCents: 2000 }));
    const paid = (await commissionOf(payment.id))!;
    expect(await localObject(paid.transferId!)).toMatchObject({ amount: 2000, destination: started.accountId, amount_reversed: 0 });

    // Half refunded: half the commission comes back; then the rest.
    await call(`/api/admin/billing/payments/${payment.id}/refund`, { token: admin.token, body: { amountCents: 5000 } });
    await vi.waitFor(async () => expect(await commissionOf(payment.id)).toMatchObject({ status: "paid", reversalDueCents: 1000, reversedCents: 1000 }));
    await call(`/api/admin/billing/payments/${payment.id}/refund`, { token: admin.token, body: {} });
    await vi.waitFor(async () => expect(await commissionOf(payment.id)).toMatchObject({ status: "reversed", reversalDueCents: 2000, reversedCents: 2000 }));
    expect(await localObject(paid.transferId!)).toMatchObject({ amount_reversed: 2000 });

    const mine = await json(await call("/api/reseller/commissions", { token: reseller.token }));
    expect(mine.rows).toEqual([expect.objectContaining({ paymentId: payment.id, clientName: "Carl Client", amountCents: 2000, status: "reversed" })]);
    const all = await json(await call(`/api/admin/billing/commissions?resellerId=${reseller.id}`, { token: admin.token }));
    expect(all.totals).toEqual({ amountCents: 2000, transferredCents: 2000, reversedCents: 2000, reversalDueCents: 2000 });
  });

  it("goes out right after a client's payment once payouts are set up", async () => {
    const { reseller, client } = await resellerWithClient({ commissionBps: 1000 });
    const started = await json(await call("/api/reseller/onboarding", { token: reseller.token, method: "POST" }));
    await call(`/api/local-stripe/onboarding/${started.url.split("/").at(-1)}/complete`, { method: "POST" });
    const payment = await payForClient(reseller, client.id, 3999);
    await vi.waitFor(async () => expect(await commissionOf(payment.id)).toMatchObject({ status: "paid", amountCents: 399, transferredCents: 399 }));
  });

  it("a commission refunded before it was transferred is never sent", async () => {
    const { reseller, client } = await resellerWithClient();
    const admin = await billingAdmin();
    const payment = await payForClient(client, client.id, 10_000);
    await call(`/api/admin/billing/payments/${payment.id}/refund`, { token: admin.token, body: {} });
    await vi.waitFor(async () => expect(await commissionOf(payment.id)).toMatchObject({ status: "reversed", transferId: null }));
    const started = await json(await call("/api/reseller/onboarding", { token: reseller.token, method: "POST" }));
    await call(`/api/local-stripe/onboarding/${started.url.split("/").at(-1)}/complete`, { method: "POST" });
    expect(await commissionOf(payment.id)).toMatchObject({ status: "reversed", transferId: null, transferredCents: 0 });
  });

  it("stops with the reseller's approval: payments after a revocation earn nothing", async () => {
    const { reseller, client } = await resellerWithClient({ payoutsEnabled: true });
    const admin = await billingAdmin();
    await call(`/api/admin/billing/resellers/${reseller.id}/revoke`, { token: admin.token, method: "POST" });
    const payment = await payForClient(client, client.id);
    expect(await commissionOf(payment.id)).toBeUndefined();
  });
});
