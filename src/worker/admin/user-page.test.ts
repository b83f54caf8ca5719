/** The user page's API, through the real Worker: a user's details, sessions, role, opt-outs, messages and audit trail. */
import { and, desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, campaignMessages, campaigns, optOuts, users } from "../db/schema";
import { owner, ownerToken, startListAdmins, supportToken } from "../test/admin-users";
import { call, db, json, seedAdmin, seedUser, signIn, signInAdmin } from "../test/fixtures";

beforeAll(startListAdmins);

const lastAudit = (action: string, target: string) =>
  db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action), eq(auditLog.target, target)))
    .orderBy(desc(auditLog.id))
    .get();

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
