import { and, eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { commissions, offers, payments, pendingSignups, referralCodes, resellers, users } from "../db/schema";
import { billingAdmin, checkout, driver, openCheckout, payForClient, payLocally, resellerWithClient, testPlan } from "../test/billing-fixtures";
import { call, db, json, PASSWORD, uniquePhone } from "../test/fixtures";

async function commissionOf(paymentId: number) {
  return db.select().from(commissions).where(eq(commissions.paymentId, paymentId)).get();
}

describe("applying and approval", () => {
  it("a driver applies; only billing admins see and approve it; the reseller owns a referral code", async () => {
    const applicant = await driver({ name: "María José" });
    const admin = await billingAdmin();
    const support = await billingAdmin("support", false);
    expect((await call("/api/reseller/apply", { token: applicant.token, body: {} })).status).toBe(400);
    const applied = await call("/api/reseller/apply", { token: applicant.token, body: { acceptTerms: true, message: "I run a drivers' group" } });
    expect(applied.status).toBe(201);
    expect((await json(applied)).reseller).toMatchObject({ status: "applied", referralCode: null, commissionPercent: 20 });
    expect((await call("/api/reseller/apply", { token: applicant.token, body: { acceptTerms: true } })).status).toBe(409);

    expect((await call("/api/admin/billing/resellers?status=applied", { token: support.token })).status).toBe(403);
    const list = await json(await call("/api/admin/billing/resellers?status=applied&pageSize=100", { token: admin.token }));
    expect(list.rows).toContainEqual(expect.objectContaining({ userId: applicant.id, message: "I run a drivers' group", status: "applied" }));

    expect((await call(`/api/admin/billing/resellers/${applicant.id}/approve`, { token: support.token, body: {} })).status).toBe(403);
    const approved = await call(`/api/admin/billing/resellers/${applicant.id}/approve`, { token: admin.token, body: { commissionPercent: 15 } });
    expect(approved.status).toBe(200);
    const reseller = (await json(approved)).reseller;
    expect(reseller).toMatchObject({ status: "approved", commissionBps: 1500 });
    expect(reseller.referralCode).toMatch(/^MARIAJ[A-Z2-9]{3}$/);
    expect(await db.select().from(referralCodes).where(eq(referralCodes.code, reseller.referralCode)).get()).toMatchObject({
      ownerUserId: applicant.id,
      owner: "María José",
    });
    expect((await json(await call("/api/reseller", { token: applicant.token }))).reseller).toMatchObject({
      status: "approved",
      referralCode: reseller.referralCode,
    });

    // The referral list (docs/product.md): billing admins only.
    expect((await call("/api/flex/v1/admin/referrals?Limit=100", { token: support.token })).status).toBe(403);
    const referrals = await json(await call("/api/flex/v1/admin/referrals?Limit=100", { token: admin.token }));
    expect(referrals.Count).toBeGreaterThan(0);
  });

  it("a chosen code must be free; a rejected driver may apply again; a revoked one may not", async () => {
    const admin = await billingAdmin();
    const { code } = await resellerWithClient();
    const applicant = await driver();
    await call("/api/reseller/apply", { token: applicant.token, body: { acceptTerms: true } });
    expect((await call(`/api/admin/billing/resellers/${applicant.id}/approve`, { token: admin.token, body: { referralCode: code } })).status).toBe(409);
    expect((await call(`/api/admin/billing/resellers/${applicant.id}/reject`, { token: admin.token, method: "POST" })).status).toBe(200);
    expect((await call(`/api/admin/billing/resellers/${applicant.id}/reject`, { token: admin.token, method: "POST" })).status).toBe(409);
    expect((await call("/api/reseller/apply", { token: applicant.token, body: { acceptTerms: true } })).status).toBe(201);
    expect((await call(`/api/admin/billing/resellers/${applicant.id}/approve`, { token: admin.token, body: {} })).status).toBe(200);
    expect((await call(`/api/admin/billing/resellers/${applicant.id}/revoke`, { token: admin.token, method: "POST" })).status).toBe(200);
    expect((await call("/api/reseller/apply", { token: applicant.token, body: { acceptTerms: true } })).status).toBe(409);
    expect((await call("/api/reseller/clients", { token: applicant.token })).status).toBe(403);
  });
});

describe("clients", () => {
  it("lists the drivers who registered with the code: expiry, system on/off and blocks won this week", async () => {
    const { reseller, client, code } = await resellerWithClient();
    await db
      .update(users)
      .set({ status: "start", expirationAt: Date.now() + 86_400_000 })
      .where(eq(users.id, client.id));
    const now = Date.now();
    const offer = (n: number, startsAt: number, endsAt: number) => ({
      userId: client.id,
      app: "flex" as const,
      platformOfferId: `offer-${client.id}-${n}`,
      stationId: "DCH1",
      stationName: "DCH1 Chicago",
      timeZone: "America/Chicago",
      payCents: 6000,
      startsAt,
      endsAt,
      seenAt: startsAt - 3_600_000,
    });
    await db.insert(offers).values([offer(1, now - 86_400_000, now - 80_000_000), offer(2, now - 10 * 86_400_000, now - 9 * 86_400_000)]);
    await driver({ referralCode: null });
    const spark = await driver({ app: "spark", referralCode: code });
    const page = await json(await call("/api/reseller/clients", { token: reseller.token }));
    expect(page.total).toBe(1);
    expect(page.rows).toEqual([
      expect.objectContaining({
        id: client.id,
        name: "Carl Client",
        status: "start",
        goodStanding: false,
        blocksWonThisWeek: 1,
        expirationAt: expect.any(Number),
      }),
    ]);
    expect(page.rows.some((r: { id: number }) => r.id === spark.id)).toBe(false);
    expect((await json(await call("/api/reseller/clients?q=nobody", { token: reseller.token }))).total).toBe(0);
  });

  it("a reseller pays a client's plan; never for someone who is not their client", async () => {
    const { reseller, client } = await resellerWithClient();
    const stranger = await driver();
    const plan = await testPlan();
    expect((await checkout(reseller, plan.id, { forUserId: stranger.id })).res.status).toBe(404);
    const other = await resellerWithClient();
    expect((await checkout(reseller, plan.id, { forUserId: other.client.id })).res.status).toBe(404);
    // A driver who is no reseller cannot pay for others at all.
    expect((await checkout(stranger, plan.id, { forUserId: client.id })).res.status).toBe(403);

    const payment = await payForClient(reseller, client.id, 4000);
    expect(payment).toMatchObject({ userId: client.id, payerId: reseller.id });
    expect((await db.select().from(users).where(eq(users.id, client.id)).get())!.expirationAt).not.toBeNull();
    // The reseller sees the payment they made; the client too.
    expect((await call(`/api/payments/${payment.id}`, { token: reseller.token })).status).toBe(200);
    expect((await call(`/api/payments/${payment.id}`, { token: client.token })).status).toBe(200);
  });
});

describe("self-dealing", () => {
  const registerWith = (app: "flex" | "spark", phoneNumber: string, referralCode: string) =>
    call("/api/auth/register", { body: { phoneNumber, password: PASSWORD, name: "Rita Again", app, referralCode, language: "en" } });

  it("a referral code belongs to its app: the reseller's own second account in the other app cannot register with it", async () => {
    const { reseller, code } = await resellerWithClient();
    const refused = await registerWith("spark", reseller.phone, code);
    expect(refused.status).toBe(422);
    expect((await json(refused)).error.details).toEqual({ field: "referralCode" });
    expect(
      await db
        .select()
        .from(users)
        .where(and(eq(users.app, "spark"), eq(users.phone, reseller.phone))),
    ).toHaveLength(0);
    // In its own app the code still works, whatever its case.
    const phone = uniquePhone();
    expect((await registerWith("flex", phone, code.toLowerCase())).status).toBe(201);
    // Held until the registrant confirms with the registration password (pending-signup.ts).
    const registered = (await db
      .select()
      .from(users)
      .where(and(eq(users.app, "flex"), eq(users.phone, phone)))
      .get())!;
    expect((await db.select().from(pendingSignups).where(eq(pendingSignups.userId, registered.id)).get())?.referralCode).toBe(code);
  });

  it("an account of the other app holding the code (from before) earns the reseller nothing", async () => {
    const { reseller, code } = await resellerWithClient({ payoutsEnabled: true });
    const twin = await driver({ app: "spark", phone: reseller.phone, referralCode: code });
    const { sessionId, payment } = await openCheckout(twin, (await testPlan({ app: "spark" })).id);
    expect((await payLocally(sessionId, "4242424242424242")).status).toBe(200);
    await vi.waitFor(async () => expect((await db.select().from(payments).where(eq(payments.id, payment.id)).get())!.status).toBe("successful"));
    expect(await commissionOf(payment.id)).toBeUndefined();
    // Nor does the admin's list count it as a client.
    const admin = await billingAdmin();
    const list = await json(await call("/api/admin/billing/resellers?status=approved&pageSize=100", { token: admin.token }));
    expect(list.rows).toContainEqual(expect.objectContaining({ userId: reseller.id, clients: 1 }));
  });

  it("nobody approves their own application, nor their account's in the other app", async () => {
    const admin = await billingAdmin("finance");
    await call("/api/reseller/apply", { token: admin.token, body: { acceptTerms: true } });
    const own = await call(`/api/admin/billing/resellers/${admin.id}/approve`, { token: admin.token, body: {} });
    expect(own.status).toBe(403);
    expect((await json(own)).error.details).toEqual({ reason: "own_application" });

    const owner = await billingAdmin();
    const ownersDriver = await driver({ app: "spark", phone: owner.phone, name: "Owner Driving" });
    await call("/api/reseller/apply", { token: ownersDriver.token, body: { acceptTerms: true } });
    expect((await call(`/api/admin/billing/resellers/${ownersDriver.id}/approve`, { token: owner.token, body: {} })).status).toBe(403);
    expect((await resellerRow(ownersDriver.id)).status).toBe("applied");
    expect((await resellerRow(admin.id)).status).toBe("applied");

    // Someone else may.
    expect((await call(`/api/admin/billing/resellers/${ownersDriver.id}/approve`, { token: admin.token, body: {} })).status).toBe(200);
    expect((await call(`/api/admin/billing/resellers/${admin.id}/approve`, { token: owner.token, body: {} })).status).toBe(200);
  });

  it("a rate above the default (20 %) is the owner's to give", async () => {
    const finance = await billingAdmin("finance");
    const owner = await billingAdmin();
    const applicant = await driver();
    await call("/api/reseller/apply", { token: applicant.token, body: { acceptTerms: true } });
    for (const commissionPercent of [100, 20.5]) {
      const res = await call(`/api/admin/billing/resellers/${applicant.id}/approve`, { token: finance.token, body: { commissionPercent } });
      expect(res.status).toBe(403);
      expect((await json(res)).error.details).toEqual({ reason: "commission_above_default", defaultPercent: 20 });
    }
    expect((await resellerRow(applicant.id)).status).toBe("applied");
    expect((await json(await call("/api/admin/billing/resellers?pageSize=20", { token: finance.token }))).defaultCommissionPercent).toBe(20);
    expect((await call(`/api/admin/billing/resellers/${applicant.id}/approve`, { token: owner.token, body: { commissionPercent: 100 } })).status).toBe(200);
    expect((await resellerRow(applicant.id)).commissionBps).toBe(10_000);

    // At the default or below, any billing administrator.
    const other = await driver();
    await call("/api/reseller/apply", { token: other.token, body: { acceptTerms: true } });
    expect((await call(`/api/admin/billing/resellers/${other.id}/approve`, { token: finance.token, body: {} })).status).toBe(200);
    expect((await resellerRow(other.id)).commissionBps).toBe(2000);
  });
});

async function resellerRow(userId: number) {
  return (await db.select().from(resellers).where(eq(resellers.userId, userId)).get())!;
}
