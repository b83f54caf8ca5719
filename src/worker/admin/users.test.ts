/**
 * The users page and the user page's API, through the real Worker. Each test scopes its rows with a
 * region name of its own, so the counts are exact whatever else the database holds.
 */
import { and, count, desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { userListSchema } from "../../shared/admin-users";
import { auditLog, campaignMessages, campaigns, optOuts, referralCodes, resellers, users } from "../db/schema";
import { call, db, json, seedAdmin, seedUser, signIn, signInAdmin, tokenFor } from "../test/fixtures";
import { userPage, userWhere } from "./users";

const DAY = 86_400_000;
let owner: Awaited<ReturnType<typeof seedAdmin>>;
let ownerToken: string;
let supportToken: string;

beforeAll(async () => {
  // Real sessions without the password round trip (tokenFor): this file is about the users list, not sign-in.
  owner = await seedAdmin({ password: null, roleName: "owner", roleProperties: { billingDetails: true } });
  ownerToken = await tokenFor(owner);
  supportToken = await tokenFor(await seedAdmin({ password: null, roleName: "support", roleProperties: { billingDetails: false } }));
});

const region = () => `Region ${crypto.randomUUID().slice(0, 8)}`;
const list = async (query: string, token = ownerToken) => {
  const res = await call(`/api/admin/users?${query}`, { token });
  expect(res.status, await res.clone().text()).toBe(200);
  return json<{ total: number; rows: { id: number; name: string; [k: string]: unknown }[] }>(res);
};
const names = (page: { rows: { name: string }[] }) => page.rows.map((r) => r.name);
const lastAudit = (action: string, target: string) =>
  db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action), eq(auditLog.target, target)))
    .orderBy(desc(auditLog.id))
    .get();

describe("GET /api/admin/users", () => {
  it("filters by each yes/no, system, reseller and role, and counts the whole filtered set", async () => {
    const r = region();
    const now = Date.now();
    await seedUser({
      password: null,
      name: "Ana On",
      humanRegion: r,
      status: "start",
      goodStanding: true,
      expirationAt: now + DAY,
      accountConnected: true,
      setupComplete: true,
    });
    const ben = await seedUser({
      password: null,
      name: "Ben Off",
      humanRegion: r,
      status: "stop",
      goodStanding: true,
      expirationAt: now - 1,
      stripeExpressId: "acct_1",
    });
    await db.insert(resellers).values({ userId: ben.id, status: "approved", commissionBps: 2000 });
    // An applicant is not a reseller yet.
    const ana = await seedUser({ password: null, name: "Ana Applicant", humanRegion: r, status: "stop", goodStanding: false });
    await db.insert(resellers).values({ userId: ana.id, status: "applied", commissionBps: 0 });
    await seedUser({ password: null, name: "Cy Admin", humanRegion: r, isAdmin: true, roleName: "support" });
    const q = `region=${encodeURIComponent(r)}`;
    expect(names(await list(`${q}&sort=name&dir=asc`))).toEqual(["Ana Applicant", "Ana On", "Ben Off"]);
    expect(names(await list(`${q}&role=all&sort=name&dir=asc`))).toEqual(["Ana Applicant", "Ana On", "Ben Off", "Cy Admin"]);
    expect(names(await list(`${q}&role=admins`))).toEqual(["Cy Admin"]);
    // Ben's stored flag says good standing, but his paid time has run out.
    expect(names(await list(`${q}&goodStanding=yes`))).toEqual(["Ana On"]);
    expect(names(await list(`${q}&goodStanding=no&sort=name&dir=asc`))).toEqual(["Ana Applicant", "Ben Off"]);
    expect(names(await list(`${q}&system=on`))).toEqual(["Ana On"]);
    expect(names(await list(`${q}&system=off&sort=name&dir=asc`))).toEqual(["Ana Applicant", "Ben Off"]);
    expect(names(await list(`${q}&reseller=yes`))).toEqual(["Ben Off"]);
    expect(names(await list(`${q}&reseller=no&sort=name&dir=asc`))).toEqual(["Ana Applicant", "Ana On"]);
    expect(names(await list(`${q}&accountConnected=yes&setupComplete=yes`))).toEqual(["Ana On"]);
    const page = await list(`${q}&sort=name&dir=desc&pageSize=20`);
    expect(page.total).toBe(3);
    expect(page.rows[0]).toMatchObject({ name: "Ben Off", region: r, reseller: true, status: "stop", goodStanding: false, isAdmin: false });
  });

  it("takes creation and expiration days in the admin's zone, both ends included", async () => {
    const r = region();
    const at = (iso: string) => Date.parse(iso);
    // 1 July 2030, New York (EDT, UTC−4): 04:00Z to 03:59:59.999Z the next day.
    await seedUser({ password: null, name: "First ms", humanRegion: r, createdAt: at("2030-07-01T04:00:00Z"), expirationAt: at("2030-08-01T03:59:59.999Z") });
    await seedUser({ password: null, name: "Last ms", humanRegion: r, createdAt: at("2030-07-02T03:59:59.999Z"), expirationAt: at("2030-08-01T04:00:00Z") });
    await seedUser({ password: null, name: "Day before", humanRegion: r, createdAt: at("2030-07-01T03:59:59.999Z") });
    const q = `region=${encodeURIComponent(r)}&timeZone=America/New_York&sort=name&dir=asc`;
    expect(names(await list(`${q}&createdFrom=2030-07-01&createdTo=2030-07-01`))).toEqual(["First ms", "Last ms"]);
    expect(names(await list(`${q}&expiresFrom=2030-07-31&expiresTo=2030-07-31`))).toEqual(["First ms"]);
    expect(names(await list(`${q}&expiresFrom=2030-08-01`))).toEqual(["Last ms"]);
    // In UTC the day before is already 1 July.
    expect(names(await list(`region=${encodeURIComponent(r)}&timeZone=UTC&createdFrom=2030-07-01&createdTo=2030-07-01&sort=name&dir=asc`))).toEqual([
      "Day before",
      "First ms",
    ]);
  });

  it("searches by phone number and by text in any case", async () => {
    const r = region();
    const who = await seedUser({ password: null, name: "María Search", humanRegion: r });
    expect(names(await list(`search=${who.phone.slice(2)}`))).toEqual(["María Search"]);
    expect(names(await list(`search=1${who.phone.slice(2)}`))).toEqual(["María Search"]);
    expect(names(await list(`region=${encodeURIComponent(r)}&search=MARÍA`))).toEqual(["María Search"]);
    // Accents and case ignored; the last 4 to 9 digits of the number as typed.
    expect(names(await list(`region=${encodeURIComponent(r)}&search=maria`))).toEqual(["María Search"]);
    expect(names(await list(`region=${encodeURIComponent(r)}&search=${who.phone.slice(-7, -4)}-${who.phone.slice(-4)}`))).toEqual(["María Search"]);
    expect(names(await list(`region=${encodeURIComponent(r)}&search=${who.phone.slice(-4)}`))).toEqual(["María Search"]);
  });

  it("pages 20 to 100 rows and refuses other sizes and bad filters", async () => {
    const r = region();
    for (let i = 0; i < 23; i++) await seedUser({ password: null, name: `Pager ${String(i).padStart(2, "0")}`, humanRegion: r });
    const second = await list(`region=${encodeURIComponent(r)}&sort=name&dir=asc&page=2&pageSize=20`);
    expect(second.total).toBe(23);
    expect(names(second)).toEqual(["Pager 20", "Pager 21", "Pager 22"]);
    for (const bad of [
      "pageSize=10",
      "pageSize=500",
      "createdFrom=2030-02-30",
      "createdFrom=2030-02-02&createdTo=2030-02-01",
      "sort=password_hash",
      "role=god",
    ]) {
      const res = await call(`/api/admin/users?${bad}`, { token: ownerToken });
      expect(res.status, bad).toBe(400);
    }
  });
});

describe("GET /api/admin/users/export.csv", () => {
  it("streams the filtered set, every formula defused, and audits the export", async () => {
    const r = region();
    await seedUser({ password: null, name: '=HYPERLINK("http://evil","x")', humanRegion: r, email: "+1@x.co" });
    await seedUser({ password: null, name: "García, José", humanRegion: r });
    const res = await call(`/api/admin/users/export.csv?region=${encodeURIComponent(r)}`, { token: ownerToken });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="users-flex.csv"');
    const lines = (await res.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "id,app,name,phone,email,region,referral,phone_verified,good_standing,account_connected,setup_complete,system,expiration,created,last_sign_in,role,reseller",
    );
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`"'=HYPERLINK(""http://evil"",""x"")"`);
    expect(lines[1]).toContain(",'+1@x.co,");
    expect(lines[1]).toMatch(/,'\+1\d{10},/);
    expect(lines[2]).toContain('"García, José"');
    const audit = await db.select().from(auditLog).where(eq(auditLog.action, "admin.users_exported")).orderBy(desc(auditLog.id)).get();
    expect(audit?.details).toMatchObject({ filters: { region: [r], app: "flex" } });
  });
});

describe("the user page", () => {
  it("shows a user with opt-outs and live sessions; 404 for nobody", async () => {
    const driver = await seedUser({ name: "Detail Driver", smsOptOut: true });
    await db.insert(optOuts).values({ phone: driver.phone, channel: "sms", keyword: "STOP", at: 1_900_000_000_000 });
    await signIn(driver);
    const body = await json(await call(`/api/admin/users/${driver.id}`, { token: supportToken }));
    expect(body.user).toMatchObject({
      id: driver.id,
      name: "Detail Driver",
      liveSessions: 1,
      optOuts: { sms: { optedOut: true, keyword: "STOP", at: 1_900_000_000_000 }, whatsapp: { optedOut: false, keyword: null, at: null } },
    });
    expect(body.user.resellerState).toBeNull();
    expect(JSON.stringify(body)).not.toMatch(/password|mfa_?secret/i);
    expect((await call("/api/admin/users/987654321", { token: supportToken })).status).toBe(404);
  });

  it("edits the profile and audits what changed, before and after", async () => {
    const driver = await seedUser({ password: null, name: "Old Name", humanRegion: "Miami" });
    const res = await call(`/api/admin/users/${driver.id}`, { method: "PATCH", body: { name: "New Name", region: "Tampa", email: "" }, token: supportToken });
    expect(res.status).toBe(200);
    expect((await json(res)).user).toMatchObject({ name: "New Name", region: "Tampa", email: null });
    expect((await lastAudit("admin.user_updated", `user:${driver.id}`))?.details).toEqual({
      changed: { name: ["Old Name", "New Name"], humanRegion: ["Miami", "Tampa"] },
    });
    for (const bad of [{}, { email: "nope" }, { name: "" }, { isAdmin: true }]) {
      const refused = await call(`/api/admin/users/${driver.id}`, { method: "PATCH", body: bad, token: supportToken });
      expect(refused.status, JSON.stringify(bad)).toBe(400);
    }
  });

  it("signs a user out everywhere: their ID token stops working at once", async () => {
    const driver = await seedUser();
    const { idToken } = await signIn(driver);
    expect((await call("/api/flex/v1/user", { token: idToken })).status).toBe(200);
    const res = await call(`/api/admin/users/${driver.id}/sign-out`, { method: "POST", body: { reason: "Lost phone" }, token: supportToken });
    expect(await json(res)).toEqual({ sessions: 1 });
    expect((await call("/api/flex/v1/user", { token: idToken })).status).toBe(401);
    expect((await lastAudit("admin.user_signed_out", `user:${driver.id}`))?.details).toEqual({ reason: "Lost phone" });
    const sessions = await json(await call(`/api/admin/users/${driver.id}/sessions`, { token: supportToken }));
    expect(sessions.total).toBe(0);
  });

  it("lists live sessions, newest first, without their secrets", async () => {
    const driver = await seedUser();
    await signIn(driver);
    await signIn(driver);
    const sessions = await json(await call(`/api/admin/users/${driver.id}/sessions`, { token: supportToken }));
    expect(sessions.total).toBe(2);
    expect(sessions.rows[0]).toEqual({
      id: expect.any(String),
      startedAt: expect.any(Number),
      lastUsedAt: expect.any(Number),
      expiresAt: expect.any(Number),
      totp: false,
    });
    expect(sessions.rows[0].id).toHaveLength(6);
  });

  it("resets an authenticator (owner only): sessions end and the next sign-in enrols a new one", async () => {
    const admin = await seedAdmin({ roleName: "support", roleProperties: { billingDetails: false } });
    const { idToken } = await signInAdmin(admin);
    expect((await call(`/api/admin/users/${admin.id}/reset-totp`, { method: "POST", body: { reason: "New phone" }, token: supportToken })).status).toBe(403);
    const res = await call(`/api/admin/users/${admin.id}/reset-totp`, { method: "POST", body: { reason: "New phone" }, token: ownerToken });
    expect(res.status).toBe(200);
    expect((await json(res)).user.mfaMethod).toBe("none");
    expect((await call("/api/flex/v1/user", { token: idToken })).status).toBe(401);
    const step = await json(await call("/api/auth/sign-in", { body: { phoneNumber: admin.phone, app: admin.app, password: admin.password } }));
    expect(step.challenge).toBe("MFA_SETUP");
    expect(await lastAudit("admin.totp_reset", `user:${admin.id}`)).toBeTruthy();
    // Nothing left to reset.
    expect((await call(`/api/admin/users/${admin.id}/reset-totp`, { method: "POST", body: { reason: "New phone" }, token: ownerToken })).status).toBe(409);
  });

  it("changes role and permissions (owner only), ends a promoted user's sessions, and audits before and after", async () => {
    const driver = await seedUser();
    const { idToken } = await signIn(driver);
    const role = { isAdmin: true, roleName: "support", billingDetails: true };
    expect((await call(`/api/admin/users/${driver.id}/role`, { method: "PUT", body: role, token: supportToken })).status).toBe(403);
    const res = await call(`/api/admin/users/${driver.id}/role`, { method: "PUT", body: role, token: ownerToken });
    expect((await json(res)).user).toMatchObject({ isAdmin: true, roleName: "support", roleBillingDetails: true });
    // The session they had never passed the TOTP an administrator needs.
    expect((await call("/api/flex/v1/user", { token: idToken })).status).toBe(401);
    expect((await lastAudit("admin.role_changed", `user:${driver.id}`))?.details).toEqual({
      before: { isAdmin: false, roleName: null, billingDetails: false },
      after: { isAdmin: true, roleName: "support", billingDetails: true },
    });
    const back = await call(`/api/admin/users/${driver.id}/role`, { method: "PUT", body: { isAdmin: false }, token: ownerToken });
    expect((await json(back)).user).toMatchObject({ isAdmin: false, roleName: null, roleBillingDetails: false });
    expect((await call(`/api/admin/users/${driver.id}/role`, { method: "PUT", body: { isAdmin: false, roleName: "x" }, token: ownerToken })).status).toBe(400);
  });

  it("refuses to change one's own role or to leave no owner", async () => {
    const res = await call(`/api/admin/users/${owner.id}/role`, { method: "PUT", body: { isAdmin: false }, token: ownerToken });
    expect(res.status).toBe(409);
    const owners = await db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.isAdmin, true), eq(users.roleName, "owner")));
    // Demoting every other owner leaves this one, who may not demote themselves.
    for (const o of owners.filter((o) => o.id !== owner.id))
      await call(`/api/admin/users/${o.id}/role`, { method: "PUT", body: { isAdmin: true, roleName: "support" }, token: ownerToken });
    const second = await seedAdmin({ roleName: "owner" });
    const secondToken = (await signInAdmin(second)).idToken;
    expect((await call(`/api/admin/users/${owner.id}/role`, { method: "PUT", body: { isAdmin: true, roleName: "support" }, token: secondToken })).status).toBe(
      200,
    );
    const last = await call(`/api/admin/users/${second.id}/role`, { method: "PUT", body: { isAdmin: true, roleName: "support" }, token: ownerToken });
    expect(last.status).toBe(403);
    await call(`/api/admin/users/${owner.id}/role`, { method: "PUT", body: { isAdmin: true, roleName: "owner", billingDetails: true }, token: secondToken });
  });

  it("sets opt-outs per channel on the account and on the opt-out list", async () => {
    const driver = await seedUser({ password: null });
    const res = await call(`/api/admin/users/${driver.id}/opt-outs`, { method: "PUT", body: { sms: false, whatsapp: true }, token: supportToken });
    expect((await json(res)).user.optOuts.whatsapp).toMatchObject({ optedOut: true, keyword: "ADMIN" });
    expect(await db.select().from(optOuts).where(eq(optOuts.phone, driver.phone))).toHaveLength(1);
    await call(`/api/admin/users/${driver.id}/opt-outs`, { method: "PUT", body: { sms: false, whatsapp: false }, token: supportToken });
    expect(await db.select().from(optOuts).where(eq(optOuts.phone, driver.phone))).toHaveLength(0);
    expect((await lastAudit("admin.opt_outs_changed", `user:${driver.id}`))?.details).toEqual({
      before: { sms: false, whatsapp: true },
      after: { sms: false, whatsapp: false },
    });
  });

  it("lists the messages a user received and the audit trail about them", async () => {
    const driver = await seedUser({ password: null });
    const campaign = await db
      .insert(campaigns)
      .values({ app: "flex", channel: "sms", source: "list", message: "Renew today", audience: {}, authorId: owner.id, idempotencyKey: crypto.randomUUID() })
      .returning()
      .get();
    await db.insert(campaignMessages).values({ campaignId: campaign.id, userId: driver.id, phone: driver.phone, status: "delivered" });
    const messages = await json(await call(`/api/admin/users/${driver.id}/messages`, { token: supportToken }));
    expect(messages.total).toBe(1);
    expect(messages.rows[0]).toMatchObject({ campaignId: campaign.id, channel: "sms", text: "Renew today", status: "delivered" });
    await call(`/api/admin/users/${driver.id}`, { method: "PATCH", body: { name: "Audited" }, token: ownerToken });
    const audit = await json(await call(`/api/admin/users/${driver.id}/audit`, { token: supportToken }));
    expect(audit.rows[0]).toMatchObject({ action: "admin.user_updated", actorId: owner.id, actorName: owner.name, target: `user:${driver.id}` });
  });
});

describe("the users page's total from the tallies", () => {
  it("is the count of the accounts the filters keep, whichever of app, role, system and connection they set", async () => {
    const driver = await seedUser({ password: null, app: "spark", phoneVerified: true });
    await db.update(users).set({ status: "start", accountConnected: true }).where(eq(users.id, driver.id));
    await seedAdmin({ app: "spark" });
    const now = Date.now();
    const shapes = [
      {},
      { app: "spark" },
      { app: "spark", role: "all" },
      { app: "spark", role: "admins" },
      { app: "spark", system: "on" },
      { app: "flex", system: "off", accountConnected: "no" },
      { app: "spark", role: "all", accountConnected: "yes", system: "on" },
    ];
    for (const shape of shapes) {
      const q = userListSchema.parse(shape);
      const [counted] = await db
        .select({ n: count() })
        .from(users)
        .where(userWhere(q, now, true));
      expect((await userPage(db, q, true, now)).total, JSON.stringify(shape)).toBe(counted!.n);
    }
  });
});

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
