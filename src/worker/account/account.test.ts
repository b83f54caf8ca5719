/** Deleting an account: the driver's own request, and an administrator's for a written one. */
import { env } from "cloudflare:test";
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, campaignMessages, campaigns, driverStationZones, payments, resellers, serviceTimeLedger, users } from "../db/schema";
import { captureSessionOf } from "../platform/capture";
import { defaultWorld } from "../test/connected-driver";
import { call, codeIn, createUser, db, json, lastOutboxId, nextSms, PASSWORD, seedUser, signIn, signInAs } from "../test/fixtures";
import { NEW_PASSWORD, populatedDriver } from "../test/populated-driver";
import { eraseAccount } from "./erase";

/** Every table's every text cell that contains one of the needles (but in `skip`'s tables): what an erasure must leave empty. */
async function cellsContaining(needles: string[], skip: string[] = []): Promise<string[]> {
  const tables = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations'",
  ).all<{ name: string }>();
  const found: string[] = [];
  for (const { name } of tables.results) {
    if (skip.includes(name)) continue;
    const rows = await env.DB.prepare(`SELECT * FROM "${name}"`).all<Record<string, unknown>>();
    for (const row of rows.results) {
      for (const [column, value] of Object.entries(row)) {
        if (typeof value !== "string") continue;
        for (const needle of needles) if (value.includes(needle)) found.push(`${name}.${column} contains ${needle}`);
      }
    }
  }
  return found;
}

const deleteBody = (extra: Record<string, unknown>) => ({ confirmation: "DELETE", ...extra });

describe("deleting my account", () => {
  it("leaves no phone, name or email in any table, keeps payments and service time, ends sessions and stops the engine", async () => {
    const d = await populatedDriver();
    const personal = [d.phone, d.name, d.email, d.platformAccount.customerId, d.platformAccount.accountName, ...d.earlier];
    // The per-address windows (rate_limits) name no one and end within the day; the audit rows name the account.
    const addressesOf = () => cellsContaining(d.addresses, ["rate_limits"]);
    for (const needle of personal) expect(await cellsContaining([needle])).not.toEqual([]);
    expect(await addressesOf()).toHaveLength(2);
    const campaignCsv = async () => {
      const { token } = await signInAs("owner");
      return (await call(`/api/admin/campaigns/${d.failedCampaignId}/export.csv`, { token })).text();
    };
    expect(await campaignCsv()).toContain(d.phone);

    const start = await call("/api/account/delete/start", { token: d.tokens.idToken, body: {} });
    expect(await json(start)).toEqual({ method: "password" });
    const res = await call("/api/account/delete", { token: d.tokens.idToken, body: deleteBody({ password: NEW_PASSWORD }) });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ erased: true, alreadyErased: false });

    expect(await cellsContaining(personal)).toEqual([]);
    expect(await addressesOf()).toEqual([]);
    // The refused send keeps its outcome and code, and the campaign's CSV shows nothing of the person.
    const failed = await db.select().from(campaignMessages).where(eq(campaignMessages.campaignId, d.failedCampaignId)).get();
    expect(failed).toMatchObject({ status: "failed", errorCode: "21211", errorMessage: null });
    const csv = await campaignCsv();
    for (const needle of [...personal, ...d.addresses]) expect(csv).not.toContain(needle);
    // Money stays, with the (anonymised) account.
    expect(await db.select().from(payments).where(eq(payments.id, d.paymentId)).get()).toMatchObject({ userId: d.user.id, amountCents: 4900 });
    expect(await db.select().from(serviceTimeLedger).where(eq(serviceTimeLedger.userId, d.user.id)).all()).toHaveLength(1);
    const row = await db.select().from(users).where(eq(users.id, d.user.id)).get();
    expect(row).toMatchObject({ phone: `erased:${d.user.id}`, name: "", email: null, passwordHash: null, accountConnected: false, status: "stop" });
    expect(row?.erasedAt).toEqual(expect.any(Number));
    // Sessions ended: the ID token and the refresh token are refused.
    expect((await call("/api/flex/v1/user", { token: d.tokens.idToken })).status).toBe(401);
    expect((await call("/api/auth/refresh", { body: { refreshToken: d.tokens.refreshToken } })).status).toBe(401);
    // The engine stopped and the platform was disconnected: the device deregistered, the driver's own station zones gone.
    expect(await captureSessionOf(env, d.user.id).status(d.user.id)).toEqual({ state: "stopped", reason: "disconnected" });
    expect((await defaultWorld().calls(d.platformAccount.customerId))["POST /auth/deregister"]).toBe(1);
    expect(await db.select().from(driverStationZones).where(eq(driverStationZones.userId, d.user.id)).all()).toEqual([]);
    // The unsent message is not sent; the typed list no longer names the number; the friend's number stays in it.
    const message = await db.select().from(campaignMessages).where(eq(campaignMessages.campaignId, d.campaignId)).get();
    expect(message).toMatchObject({ status: "skipped", errorCode: "erased", userId: null, name: null });
    const campaign = await db.select().from(campaigns).where(eq(campaigns.id, d.campaignId)).get();
    expect(campaign?.audience).toEqual({ source: "list", app: "flex", phones: [d.friend] });
    // The reseller application is withdrawn; the audit trail says who erased it.
    expect(await db.select().from(resellers).where(eq(resellers.userId, d.user.id)).get()).toMatchObject({ status: "revoked", message: null });
    const audit = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.target, `user:${d.user.id}`), eq(auditLog.action, "account.erased")))
      .all();
    expect(audit).toEqual([expect.objectContaining({ actorId: d.user.id, details: { app: "flex" } })]);

    // A second request is harmless: nothing more changes and no second audit row is written.
    const auditCount = async () =>
      (
        await db
          .select({ n: sql<number>`count(*)` })
          .from(auditLog)
          .where(eq(auditLog.target, `user:${d.user.id}`))
          .get()
      )?.n;
    const before = await auditCount();
    expect(await eraseAccount(db, env, d.user.id, { by: "self", actorId: d.user.id })).toEqual({ erased: true, alreadyErased: true });
    expect(await auditCount()).toBe(before);
  });

  it("needs the password, and the typed word", async () => {
    const user = await seedUser();
    const { idToken } = await signIn(user);
    const wrong = await call("/api/account/delete", { token: idToken, body: deleteBody({ password: "Wrong#2026!" }) });
    expect(wrong.status).toBe(400);
    expect(await json(wrong)).toMatchObject({ error: { details: { reason: "wrong_password" } } });
    const untyped = await call("/api/account/delete", { token: idToken, body: { password: PASSWORD, confirmation: "yes" } });
    expect(untyped.status).toBe(400);
    expect(await json(untyped)).toMatchObject({ error: { code: "validation_failed" } });
    expect((await db.select().from(users).where(eq(users.id, user.id)).get())?.erasedAt).toBeNull();
    // The Spanish word works too.
    const ok = await call("/api/account/delete", { token: idToken, body: { password: PASSWORD, confirmation: "eliminar" } });
    expect(ok.status).toBe(200);
  });

  it("an account without a password proves itself with a texted code", async () => {
    const user = await seedUser({ password: null });
    const { family } = await import("../auth/refresh-tokens").then((m) => m.startRefreshFamily(db, user.id, { passedTotp: false }));
    const { signIdToken } = await import("../auth/tokens");
    const token = await signIdToken(env, {
      sub: String(user.id),
      sid: family,
      phone_number: user.phone,
      phone_number_verified: true,
      app: "flex",
      is_admin: false,
    });
    const after = await lastOutboxId();
    const start = await call("/api/account/delete/start", { token, body: {} });
    expect(await json(start)).toMatchObject({ method: "code" });
    const sms = await nextSms(user.phone, after);
    expect(sms.body).toContain("DELETE");
    const noCode = await call("/api/account/delete", { token, body: deleteBody({ password: "x" }) });
    expect(await json(noCode)).toMatchObject({ error: { details: { reason: "code_required" } } });
    const wrong = await call("/api/account/delete", { token, body: deleteBody({ code: codeIn(sms.body) === "000000" ? "111111" : "000000" }) });
    expect(await json(wrong)).toMatchObject({ error: { details: { reason: "mismatch" } } });
    const ok = await call("/api/account/delete", { token, body: deleteBody({ code: codeIn(sms.body) }) });
    expect(ok.status).toBe(200);
    expect((await db.select().from(users).where(eq(users.id, user.id)).get())?.erasedAt).toEqual(expect.any(Number));
  });

  it("is refused to administrators, who are deleted by the owner", async () => {
    const { token } = await signInAs("support");
    const res = await call("/api/account/delete/start", { token, body: {} });
    expect(res.status).toBe(409);
    expect(await json(res)).toMatchObject({ error: { details: { reason: "administrator" } } });
  });
});

describe("an administrator erasing an account for a written request", () => {
  const erase = (token: string, id: number, body: unknown = { reference: "Letter of 3 May, ticket 812", confirmation: "DELETE" }) =>
    call(`/api/admin/users/${id}/erase`, { token, body });

  it("is open to billing administrators for drivers and audited with the reference in the same batch", async () => {
    const billing = await signInAs("billing");
    const driver = await createUser();
    const res = await erase(billing.token, driver.id);
    expect(res.status).toBe(200);
    const audit = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.target, `user:${driver.id}`), eq(auditLog.action, "admin.account_erased")))
      .all();
    expect(audit).toEqual([expect.objectContaining({ actorId: billing.user.id, details: { reference: "Letter of 3 May, ticket 812", app: "flex" } })]);
    expect((await db.select().from(users).where(eq(users.id, driver.id)).get())?.phone).toBe(`erased:${driver.id}`);
  });

  it("refuses support administrators, and administrators' accounts to anyone but the owner", async () => {
    const support = await signInAs("support");
    const billing = await signInAs("billing");
    const owner = await signInAs("owner");
    const driver = await createUser();
    const admin = await createUser({ isAdmin: true, roleName: "support" });
    expect((await erase(support.token, driver.id)).status).toBe(403);
    expect((await erase(billing.token, admin.id)).status).toBe(403);
    expect((await db.select().from(users).where(eq(users.id, admin.id)).get())?.erasedAt).toBeNull();
    expect((await erase(owner.token, owner.user.id)).status).toBe(409);
    expect((await erase(owner.token, admin.id)).status).toBe(200);
  });

  it("needs the reference and the typed word; an unknown account is a 404", async () => {
    const owner = await signInAs("owner");
    const driver = await createUser();
    expect((await erase(owner.token, driver.id, { reference: "x", confirmation: "DELETE" })).status).toBe(400);
    expect((await erase(owner.token, driver.id, { reference: "Ticket 9", confirmation: "no" })).status).toBe(400);
    expect((await erase(owner.token, 987654321)).status).toBe(404);
    expect((await db.select().from(users).where(eq(users.id, driver.id)).get())?.erasedAt).toBeNull();
  });
});
