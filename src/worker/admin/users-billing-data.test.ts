import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, referralCodes, resellers } from "../db/schema";
import { list, owner, ownerToken, region, startListAdmins, supportToken } from "../test/admin-users";
import { call, db, json, seedUser } from "../test/fixtures";

beforeAll(startListAdmins);

describe("billing data in the user lists and pages", () => {
  /** A reseller with a code, a Connect account and a rate, and a client of theirs, in a region of their own. */
  async function resellerAndClient() {
    const r = region();
    const code = `BD${crypto.randomUUID().replace(/-/g, "").slice(0, 8).toUpperCase()}`;
    const reseller = await seedUser({ humanRegion: r, name: "Rosa Reseller", stripeExpressId: "acct_billing_data", password: null });
    await db.insert(referralCodes).values({ code, app: "flex", owner: reseller.name, ownerUserId: reseller.id });
    await db.insert(resellers).values({ userId: reseller.id, status: "approved", commissionBps: 2500, referralCode: code });
    const client = await seedUser({ humanRegion: r, name: "Clara Client", referralCode: code, password: null });
    return { r, code, reseller, client };
  }

  it("lists, searches and exports without referral codes for administrators without billingDetails", async () => {
    const { r, code, client } = await resellerAndClient();
    const mine = await list(`region=${encodeURIComponent(r)}&sort=name&dir=asc`, supportToken);
    expect(mine.total).toBe(2);
    for (const row of mine.rows) expect(row).not.toHaveProperty("referral");
    // Searching by the code finds nobody for them; with billingDetails it finds the client.
    expect((await list(`search=${code}`, supportToken)).total).toBe(0);
    expect((await list(`search=${code}`)).rows.map((u) => u.id)).toEqual([client.id]);
    expect((await list(`region=${encodeURIComponent(r)}&sort=name&dir=asc`)).rows.find((u) => u.id === client.id)).toMatchObject({ referral: code });
    // Names and regions are still searched.
    expect((await list(`search=${encodeURIComponent("Clara Client")}&region=${encodeURIComponent(r)}`, supportToken)).total).toBe(1);

    const csv = async (token: string) => (await (await call(`/api/admin/users/export.csv?region=${encodeURIComponent(r)}`, { token })).text()).trimEnd();
    const theirs = await csv(supportToken);
    expect(theirs.split("\r\n")[0]).not.toContain("referral");
    expect(theirs).not.toContain(code);
    expect(theirs.split("\r\n")).toHaveLength(3);
    const billing = await csv(ownerToken);
    expect(billing.split("\r\n")[0]).toContain("referral");
    expect(billing).toContain(code);
  });

  it("counts and sends a campaign without searching referral codes for administrators without billingDetails", async () => {
    const { r, code, client } = await resellerAndClient();
    const summary = async (token: string) =>
      (await json(await call(`/api/admin/audience/review?search=${code}&region=${encodeURIComponent(r)}&channel=sms&purpose=service`, { token }))).total;
    expect(await summary(supportToken)).toBe(0);
    expect(await summary(ownerToken)).toBe(1);
    const campaign = (token: string) =>
      call("/api/admin/campaigns", {
        token,
        body: {
          idempotencyKey: crypto.randomUUID(),
          purpose: "service",
          source: "drivers",
          channel: "sms",
          message: "Your week is waiting",
          audience: { app: "flex", region: [r], search: code },
        },
      });
    const refused = await campaign(supportToken);
    expect(refused.status).toBe(422);
    expect((await json(refused)).error.details).toMatchObject({ reason: "audience_empty" });
    const sent = await campaign(ownerToken);
    expect(sent.status).toBe(201);
    expect((await json(sent)).campaign.total).toBe(1);
    expect(client.id).toBeGreaterThan(0);
  });

  it("shows a user without referral code, Connect account or commission rate to administrators without billingDetails", async () => {
    const { code, reseller, client } = await resellerAndClient();
    const theirs = (await json(await call(`/api/admin/users/${reseller.id}`, { token: supportToken }))).user;
    expect(theirs).not.toHaveProperty("stripeExpressId");
    expect(theirs).not.toHaveProperty("referral");
    expect(theirs.resellerState).toEqual({ status: "approved" });
    expect(JSON.stringify(theirs)).not.toContain(code);
    expect((await json(await call(`/api/admin/users/${client.id}`, { token: supportToken }))).user).not.toHaveProperty("referral");
    const billing = (await json(await call(`/api/admin/users/${reseller.id}`, { token: ownerToken }))).user;
    expect(billing).toMatchObject({ stripeExpressId: "acct_billing_data", resellerState: { status: "approved", referralCode: code, commissionPercent: 25 } });
    expect((await json(await call(`/api/admin/users/${client.id}`, { token: ownerToken }))).user.referral).toBe(code);
  });

  it("reads billing actions in the audit trail without their details (code, rate) without billingDetails", async () => {
    const { code, reseller } = await resellerAndClient();
    await db.insert(auditLog).values([
      {
        actorId: owner.id,
        action: "billing.reseller_approved",
        target: `user:${reseller.id}`,
        details: { referralCode: code, commissionPercent: 25 },
        at: Date.now(),
      },
      {
        actorId: owner.id,
        action: "admin.users_exported",
        target: `user:${reseller.id}`,
        details: { filters: { app: "flex", referral: [code] } },
        at: Date.now(),
      },
    ]);
    for (const path of [`/api/admin/users/${reseller.id}/audit`, `/api/admin/audit?target=user:${reseller.id}`]) {
      const theirs = await json(await call(path, { token: supportToken }));
      expect(
        theirs.rows.map((r: { action: string; details: unknown }) => [r.action, r.details]),
        path,
      ).toEqual([
        ["admin.users_exported", { filters: { app: "flex" } }],
        ["billing.reseller_approved", null],
      ]);
      expect(JSON.stringify(await json(await call(path, { token: ownerToken }))), path).toContain(code);
    }
  });

  it("leaves the referral code and Connect account out of the review's and the old tables' rows too", async () => {
    const { r, code } = await resellerAndClient();
    for (const path of [`/api/admin/audience?app=flex&region=${encodeURIComponent(r)}`, `/api/flex/v1/all-users-table?region=${encodeURIComponent(r)}`]) {
      const theirs = await json(await call(path, { token: supportToken }));
      const rows = (theirs.rows ?? theirs.Items) as Record<string, unknown>[];
      expect(rows, path).toHaveLength(2);
      for (const row of rows) {
        expect(row, path).not.toHaveProperty("referral");
        expect(row, path).not.toHaveProperty("stripeExpressId");
      }
      const billing = await json(await call(path, { token: ownerToken }));
      expect(JSON.stringify(billing), path).toContain(code);
      expect(JSON.stringify(billing), path).toContain("acct_billing_data");
      // A search by the code finds nobody for them.
      const searched = await json(await call(`${path.split("?")[0]}?app=flex&search=${code}`, { token: supportToken }));
      expect(searched.total ?? searched.Count, path).toBe(0);
    }
  });
});
