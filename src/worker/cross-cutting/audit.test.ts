import { env } from "cloudflare:test";
import { and, desc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, campaigns, consentEvents, localStripeObjects, plans, resellers, serviceTimeLedger } from "../db/schema";
import { billingAdmin, driver, openCheckout, payLocally, paymentRow, resellerWithClient, testPlan, userRow } from "../test/billing-fixtures";
import { call, db, json } from "../test/fixtures";

/**
 * While it runs, every audit row of `actorId` is refused by the database (a trigger that aborts
 * the insert), as a full disk or a constraint would: a change written in the same transaction as
 * its audit row then does not happen either.
 */
async function withAuditRefusedFor<T>(actorId: number, run: () => Promise<T>): Promise<T> {
  const name = `audit_refused_${actorId}`;
  await env.DB.prepare(
    `CREATE TRIGGER ${name} BEFORE INSERT ON audit_log WHEN NEW.actor_id = ${actorId} BEGIN SELECT RAISE(ABORT, 'audit refused'); END`,
  ).run();
  try {
    return await run();
  } finally {
    await env.DB.prepare(`DROP TRIGGER ${name}`).run();
  }
}

async function auditOf(actorId: number, action: string) {
  return db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.actorId, actorId), eq(auditLog.action, action)))
    .orderBy(desc(auditLog.id))
    .all();
}

describe("billing changes and their audit rows are one transaction", () => {
  it("plans: no audit row, no plan created or edited", async () => {
    const owner = await billingAdmin();
    const plan = await testPlan({ priceCents: 4000 });
    const name = `Refused ${crypto.randomUUID()}`;
    await withAuditRefusedFor(owner.id, async () => {
      const created = await call("/api/admin/billing/plans", { token: owner.token, body: { app: "flex", name, days: 3, priceCents: 999 } });
      expect(created.status).toBe(500);
      const edited = await call(`/api/admin/billing/plans/${plan.id}`, { token: owner.token, method: "PATCH", body: { priceCents: 51 } });
      expect(edited.status).toBe(500);
    });
    expect(await db.select().from(plans).where(eq(plans.name, name))).toEqual([]);
    expect((await db.select().from(plans).where(eq(plans.id, plan.id)).get())!.priceCents).toBe(4000);

    // Allowed, each change carries its row.
    const created = await json(await call("/api/admin/billing/plans", { token: owner.token, body: { app: "flex", name, days: 3, priceCents: 999 } }));
    expect((await auditOf(owner.id, "billing.plan_created"))[0]).toMatchObject({ target: `plan:${created.plan.id}`, details: { name, days: 3 } });
    await call(`/api/admin/billing/plans/${plan.id}`, { token: owner.token, method: "PATCH", body: { priceCents: 51 } });
    expect((await auditOf(owner.id, "billing.plan_updated"))[0]).toMatchObject({ target: `plan:${plan.id}`, details: { priceCents: 51 } });
    // A plan that does not exist: 404 and no audit row.
    expect((await call("/api/admin/billing/plans/987654321", { token: owner.token, method: "PATCH", body: { priceCents: 52 } })).status).toBe(404);
    expect(await auditOf(owner.id, "billing.plan_updated")).toHaveLength(1);
  });

  it("resellers: no audit row, no approval, rejection or revocation", async () => {
    const admin = await billingAdmin();
    const applicant = await driver();
    await call("/api/reseller/apply", { token: applicant.token, body: { acceptTerms: true } });
    const { reseller } = await resellerWithClient();
    await withAuditRefusedFor(admin.id, async () => {
      expect((await call(`/api/admin/billing/resellers/${applicant.id}/approve`, { token: admin.token, body: {} })).status).toBe(500);
      expect((await call(`/api/admin/billing/resellers/${applicant.id}/reject`, { token: admin.token, method: "POST" })).status).toBe(500);
      expect((await call(`/api/admin/billing/resellers/${reseller.id}/revoke`, { token: admin.token, method: "POST" })).status).toBe(500);
    });
    expect((await db.select().from(resellers).where(eq(resellers.userId, applicant.id)).get())!.status).toBe("applied");
    expect((await db.select().from(resellers).where(eq(resellers.userId, reseller.id)).get())!.status).toBe("approved");

    expect((await call(`/api/admin/billing/resellers/${applicant.id}/reject`, { token: admin.token, method: "POST" })).status).toBe(200);
    expect((await call(`/api/admin/billing/resellers/${reseller.id}/revoke`, { token: admin.token, method: "POST" })).status).toBe(200);
    expect((await auditOf(admin.id, "billing.reseller_rejected"))[0]!.target).toBe(`user:${applicant.id}`);
    expect((await auditOf(admin.id, "billing.reseller_revoked"))[0]!.target).toBe(`user:${reseller.id}`);
    // A refused decision (already rejected) writes no row.
    expect((await call(`/api/admin/billing/resellers/${applicant.id}/reject`, { token: admin.token, method: "POST" })).status).toBe(409);
    expect(await auditOf(admin.id, "billing.reseller_rejected")).toHaveLength(1);
    await call("/api/reseller/apply", { token: applicant.token, body: { acceptTerms: true } });
    expect((await call(`/api/admin/billing/resellers/${applicant.id}/approve`, { token: admin.token, body: { commissionPercent: 12 } })).status).toBe(200);
    expect((await auditOf(admin.id, "billing.reseller_approved"))[0]).toMatchObject({ target: `user:${applicant.id}`, details: { commissionPercent: 12 } });
  });

  it("service time: no audit row, no days and no ledger row", async () => {
    const admin = await billingAdmin();
    const user = await driver();
    await withAuditRefusedFor(admin.id, async () => {
      const res = await call(`/api/admin/billing/users/${user.id}/service-time`, { token: admin.token, body: { days: 30, reason: "Goodwill" } });
      expect(res.status).toBe(500);
    });
    expect((await userRow(user.id)).expirationAt).toBeNull();
    expect(await db.select().from(serviceTimeLedger).where(eq(serviceTimeLedger.userId, user.id))).toEqual([]);

    expect((await call(`/api/admin/billing/users/${user.id}/service-time`, { token: admin.token, body: { days: 30, reason: "Goodwill" } })).status).toBe(201);
    expect((await auditOf(admin.id, "billing.service_time_adjusted"))[0]).toMatchObject({
      target: `user:${user.id}`,
      details: { days: 30, reason: "Goodwill" },
    });
  });

  it("refunds: the request is audited before it reaches the provider, so none goes out unaudited", async () => {
    const admin = await billingAdmin();
    const user = await driver();
    const { payment, sessionId } = await openCheckout(user, (await testPlan({ priceCents: 4000 })).id);
    await payLocally(sessionId, "4242424242424242");
    const intent = (await paymentRow(payment.id)).paymentIntentId;
    const refundsOf = async () =>
      (await db.select().from(localStripeObjects).where(eq(localStripeObjects.object, "refund"))).filter((r) => r.data.payment_intent === intent);
    await withAuditRefusedFor(admin.id, async () => {
      expect((await call(`/api/admin/billing/payments/${payment.id}/refund`, { token: admin.token, body: {} })).status).toBe(500);
    });
    expect(await refundsOf()).toEqual([]);
    expect((await paymentRow(payment.id)).status).toBe("successful");

    expect((await call(`/api/admin/billing/payments/${payment.id}/refund`, { token: admin.token, body: {} })).status).toBe(202);
    expect(await refundsOf()).toHaveLength(1);
    expect((await auditOf(admin.id, "billing.refund_requested"))[0]).toMatchObject({ target: `payment:${payment.id}`, details: { amountCents: 4000 } });
  });

  it("campaigns: no audit row, no cancellation", async () => {
    const admin = await billingAdmin();
    const campaign = await db
      .insert(campaigns)
      .values({
        app: "flex",
        channel: "sms",
        source: "list",
        message: "Later",
        audience: {},
        authorId: admin.id,
        idempotencyKey: crypto.randomUUID(),
        status: "scheduled",
        scheduledAt: Date.now() + 86_400_000,
      })
      .returning()
      .get();
    await withAuditRefusedFor(admin.id, async () => {
      expect((await call(`/api/admin/campaigns/${campaign.id}/cancel`, { token: admin.token, method: "POST" })).status).toBe(500);
    });
    expect((await db.select().from(campaigns).where(eq(campaigns.id, campaign.id)).get())!.status).toBe("scheduled");
    expect((await call(`/api/admin/campaigns/${campaign.id}/cancel`, { token: admin.token, method: "POST" })).status).toBe(200);
    expect((await auditOf(admin.id, "campaign.cancel"))[0]!.target).toBe(`campaign:${campaign.id}`);
  });
});

describe("exports are audited", () => {
  it("the campaign CSV export writes admin.campaign_exported (and nothing is exported if it cannot)", async () => {
    const admin = await billingAdmin();
    const campaign = await db
      .insert(campaigns)
      .values({ app: "flex", channel: "sms", source: "list", message: "hi", audience: {}, authorId: admin.id, idempotencyKey: crypto.randomUUID() })
      .returning()
      .get();
    const path = `/api/admin/campaigns/${campaign.id}/export.csv`;
    await withAuditRefusedFor(admin.id, async () => {
      expect((await call(path, { token: admin.token })).status).toBe(500);
    });
    const res = await call(path, { token: admin.token });
    expect(res.status).toBe(200);
    await res.text();
    expect(await auditOf(admin.id, "admin.campaign_exported")).toEqual([expect.objectContaining({ target: `campaign:${campaign.id}` })]);
  });
});

describe("opt-outs changed by an administrator", () => {
  it("write a consent-ledger row for each channel, the removal of an opt-out included", async () => {
    const admin = await billingAdmin();
    const user = await driver();
    const put = (body: { sms: boolean; whatsapp: boolean }) => call(`/api/admin/users/${user.id}/opt-outs`, { token: admin.token, method: "PUT", body });
    expect((await put({ sms: true, whatsapp: false })).status).toBe(200);
    expect((await put({ sms: false, whatsapp: false })).status).toBe(200);
    const ledger = await db.select().from(consentEvents).where(eq(consentEvents.phone, user.phone)).orderBy(consentEvents.id);
    expect(ledger.map((e) => [e.kind, e.channel, e.source, e.actorId, e.userId])).toEqual([
      ["opt_out", "sms", "admin", admin.id, user.id],
      ["opt_in", "sms", "admin", admin.id, user.id],
    ]);
    // Nothing changed: nothing recorded.
    expect((await put({ sms: false, whatsapp: false })).status).toBe(200);
    expect(await db.select().from(consentEvents).where(eq(consentEvents.phone, user.phone))).toHaveLength(2);
  });
});

describe("reading another person's calendar", () => {
  const week = "?week=2031-05-15";

  it("is audited for the driver's reseller and for an administrator, not for the driver themself", async () => {
    const { reseller, client } = await resellerWithClient();
    const admin = await billingAdmin();
    const path = `/api/driver/calendar/${encodeURIComponent(client.phone)}${week}`;
    expect((await call(path, { token: reseller.token })).status).toBe(200);
    expect((await call(path, { token: admin.token })).status).toBe(200);
    expect((await call(path, { token: client.token })).status).toBe(200);
    expect(await auditOf(reseller.id, "driver.calendar_viewed")).toEqual([
      expect.objectContaining({ target: `user:${client.id}`, details: { week: "2031-05-15", as: "reseller" } }),
    ]);
    expect(await auditOf(admin.id, "driver.calendar_viewed")).toEqual([
      expect.objectContaining({ target: `user:${client.id}`, details: { week: "2031-05-15", as: "admin" } }),
    ]);
    expect(await auditOf(client.id, "driver.calendar_viewed")).toEqual([]);
  });

  it("answers nothing when the read cannot be audited", async () => {
    const { reseller, client } = await resellerWithClient();
    await withAuditRefusedFor(reseller.id, async () => {
      expect((await call(`/api/driver/calendar/${encodeURIComponent(client.phone)}${week}`, { token: reseller.token })).status).toBe(500);
    });
  });
});

describe("opening a driver's screens (acting for them)", () => {
  it("is refused when the opening cannot be audited", async () => {
    const { client } = await resellerWithClient();
    const admin = await billingAdmin();
    const path = `/api/admin/users/${client.id}/acting-for`;
    await withAuditRefusedFor(admin.id, async () => {
      const res = await call(path, { token: admin.token, body: { view: "dashboard" } });
      expect(res.status).toBe(500);
      expect(await json(res)).toHaveProperty("error.code");
    });
    expect(await auditOf(admin.id, "driver.dashboard_viewed")).toEqual([]);
    expect((await call(path, { token: admin.token, body: { view: "dashboard" } })).status).toBe(201);
    expect(await auditOf(admin.id, "driver.dashboard_viewed")).toEqual([
      expect.objectContaining({ target: `user:${client.id}`, details: { view: "dashboard", as: "admin" } }),
    ]);
  });
});
