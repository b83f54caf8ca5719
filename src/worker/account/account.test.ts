import { createExecutionContext, env, getQueueResult } from "cloudflare:test";
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { REGISTRATION_CONSENT } from "../../shared/consent-texts";
import { fileDropOffLeads } from "../admin/leads";
import { recordConsent } from "../compliance/consent";
import { phoneHash } from "../compliance/erased-opt-outs";
import {
  auditLog,
  authChallenges,
  campaignExclusions,
  campaignMessages,
  campaigns,
  consentConfirmations,
  driverStationZones,
  invitations,
  leads,
  optOutHashes,
  optOuts,
  outbox,
  payments,
  platformSignIns,
  rateLimits,
  referralCodes,
  resellers,
  serviceTimeLedger,
  users,
  verificationCodes,
} from "../db/schema";
import { jobHandlers } from "../messaging/jobs";
import { captureSessionOf } from "../platform/capture";
import { twilioSignature } from "../providers/webhook-signatures";
import { handleQueueBatch, type Job } from "../queue";
import { connectedDriver, defaultWorld, recordWonBlock } from "../test/connected-driver";
import {
  api,
  call,
  codeIn,
  createUser,
  db,
  json,
  lastOutboxId,
  nextSms,
  PASSWORD,
  seedUser,
  signIn,
  signInAs,
  type Tokens,
  tokenFor,
  uniquePhone,
  uniqueTag,
} from "../test/fixtures";
import { batchWithRetryDelays, queueMessage, recordingQueue } from "../test/queue-batch";
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

/**
 * A client address of its own (an IPv6 one: stored by its /64, whose four groups of four digits are
 * unique to it, so no other test's address contains it), and that /64 as the audit rows keep it.
 */
function clientOfItsOwn() {
  const group = () => (0x1000 + Math.floor(Math.random() * 0xf000)).toString(16);
  const prefix = `2001:db8:${group()}:${group()}:`;
  return { address: `${prefix}:7`, stored: prefix };
}

/** A driver with a row in every table that can hold something of theirs, signed in. */
async function populatedDriver() {
  const tag = uniqueTag("zq");
  const name = `Quinn ${tag}`;
  const email = `${tag}@example.com`;
  const d = await connectedDriver({ offersRate: null, user: { name, email, humanRegion: `Region ${tag}`, password: PASSWORD } as never });
  const user = d.user;
  const phone = user.phone;
  // A reset and a sign-in, each audited with the client's address.
  const clients = [clientOfItsOwn(), clientOfItsOwn()] as const;
  const before = await lastOutboxId();
  expect((await call("/api/auth/forgot-password", { body: { phoneNumber: phone, app: user.app }, address: clients[0].address })).status).toBe(200);
  const code = codeIn((await nextSms(phone, before)).body);
  const reset = await call("/api/auth/reset-password", {
    body: { phoneNumber: phone, app: user.app, code, newPassword: NEW_PASSWORD },
    address: clients[0].address,
  });
  expect(reset.status).toBe(200);
  const signedIn = await call("/api/auth/sign-in", { body: { phoneNumber: phone, app: user.app, password: NEW_PASSWORD }, address: clients[1].address });
  const tokens = (await json(signedIn)).tokens as Tokens;
  // The engine runs.
  expect((await call("/api/driver/engine", { token: tokens.idToken, body: { on: true } })).status).toBe(200);
  const now = Date.now();
  const admin = await createUser({ isAdmin: true, roleName: "owner", billingDetails: true });
  const friend = uniquePhone();
  await db.insert(invitations).values({ inviterId: user.id, app: "flex", phone: friend });
  await db.insert(invitations).values({ inviterId: admin.id, app: "flex", phone });
  await db.insert(verificationCodes).values({ app: "flex", phone, purpose: "confirm", codeHash: "x", expiresAt: now + 60_000 });
  await db.insert(authChallenges).values({ id: uniqueTag("ch"), userId: user.id, challenge: "SMS_MFA", expiresAt: now + 60_000, data: { phone } });
  // The reset above counted codeSendPerPhone:<phone>; one more window keyed by the number:
  await db.insert(rateLimits).values({ key: `contactPerPhone:${phone}`, count: 1, resetAt: now + 60_000 });
  await db
    .insert(platformSignIns)
    .values({ id: uniqueTag("ps"), userId: user.id, email: d.email, kind: "code", sealedSession: "sealed", expiresAt: now + 60_000 });
  // A zone the driver gave one of their stations themselves.
  const stationZone = { userId: user.id, app: "flex" as const, stationId: d.stations[0]!, timeZone: "America/Chicago" };
  await db.insert(driverStationZones).values(stationZone);
  await recordWonBlock(d, { platformOfferId: uniqueTag("o"), payCents: 9000, startsAt: now + 3_600_000, blockId: null, seenAt: now });
  const payment = await db
    .insert(payments)
    .values({ userId: user.id, payerId: user.id, amountCents: 4900, days: 7, status: "successful", provider: "local", settledAt: now })
    .returning()
    .get();
  await db.insert(serviceTimeLedger).values({
    userId: user.id,
    kind: "payment",
    deltaMs: 7 * 86_400_000,
    paymentId: payment.id,
    sourceKey: `payment:${payment.id}`,
    requestId: uniqueTag("r"),
  });
  await db.insert(leads).values({ app: "flex", phone, name, email, source: "contact", message: `Hello, I am ${name}` });
  await db.insert(leads).values({ app: "flex", phone, name, userId: user.id, source: "drop_off" });
  await recordConsent(db, { phone, basis: "express", source: "registration", text: REGISTRATION_CONSENT, language: "en", userId: user.id });
  await db.insert(consentConfirmations).values({ phone, consentEventId: 0, language: "en", sentAt: now });
  await db.insert(optOuts).values({ phone, channel: "sms", keyword: "STOP" });
  await db.update(users).set({ smsOptOut: true }).where(eq(users.id, user.id));
  const campaign = await db
    .insert(campaigns)
    .values({
      app: "flex",
      channel: "sms",
      source: "list",
      message: "Hi",
      audience: { source: "list", app: "flex", phones: [phone, friend] },
      authorId: admin.id,
      idempotencyKey: uniqueTag("k"),
    })
    .returning()
    .get();
  await db.insert(campaignMessages).values({ campaignId: campaign.id, userId: user.id, phone, name, status: "pending" });
  // A send the provider refused, in its own words (Twilio's quote the To number).
  const earlier = await db
    .insert(campaigns)
    .values({
      app: "flex",
      channel: "sms",
      source: "list",
      message: "Hi",
      audience: { source: "list", app: "flex", phones: [] },
      authorId: admin.id,
      idempotencyKey: uniqueTag("k"),
    })
    .returning()
    .get();
  await db.insert(campaignMessages).values({
    campaignId: earlier.id,
    userId: user.id,
    phone,
    name,
    status: "failed",
    providerId: uniqueTag("SM"),
    errorCode: "21211",
    errorMessage: `The 'To' number ${phone} is not a valid phone number.`,
  });
  await db.insert(campaignExclusions).values({ campaignId: campaign.id, phone });
  await db.insert(outbox).values({ channel: "sms", to: phone, body: `Hi ${name}`, providerId: uniqueTag("p") });
  // An administrator's edit: the audit row keeps the earlier name, email and region.
  const current = { name: `Rowan ${tag}`, email: `${tag}-now@example.com` };
  const edit = await call(`/api/admin/users/${user.id}`, {
    method: "PATCH",
    token: await tokenFor(admin, { isAdmin: true }),
    body: { ...current, region: `Area ${tag}` },
  });
  expect(edit.status).toBe(200);
  await db.insert(referralCodes).values({ code: tag.toUpperCase(), app: "flex", owner: name, ownerUserId: user.id });
  await db.insert(resellers).values({ userId: user.id, status: "applied", message: `${name} wants to resell`, commissionBps: 2000 });
  return {
    user,
    tokens,
    ...current,
    /** What the account was called before the administrator's edit, and where it signed in from. */
    earlier: [name, email, `Region ${tag}`],
    addresses: clients.map((c) => c.stored),
    phone,
    platformAccount: { customerId: d.customerId, accountName: d.accountName },
    stationZone,
    friend,
    campaignId: campaign.id,
    failedCampaignId: earlier.id,
    paymentId: payment.id,
    admin,
  };
}

/** The password populatedDriver's reset sets. */
const NEW_PASSWORD = "Reset#2026!x";

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

describe("an opted-out number after its account is erased", () => {
  function queueEnv() {
    const queue = recordingQueue();
    return { queue, workerEnv: { ...env, DISPATCH: queue.queue } as Env };
  }
  async function runJobs(workerEnv: Env, jobs: Job[]) {
    const { batch } = batchWithRetryDelays(
      "blockpilot-dispatch",
      jobs.map((job, i) => queueMessage(`m${i}`, job)),
    );
    await handleQueueBatch(batch, workerEnv, jobHandlers);
    await getQueueResult(batch, createExecutionContext());
  }

  it("is kept only as a keyed hash, and a campaign to the number still skips it", async () => {
    const user = await createUser({ smsOptOut: true });
    await db.insert(optOuts).values({ phone: user.phone, channel: "sms", keyword: "STOP" });
    await eraseAccount(db, env, user.id, { by: "self", actorId: user.id });
    expect(await db.select().from(optOuts).where(eq(optOuts.phone, user.phone)).all()).toEqual([]);
    const hash = await phoneHash(env.PASSWORD_PEPPER, user.phone);
    expect(await db.select({ channel: optOutHashes.channel }).from(optOutHashes).where(eq(optOutHashes.hash, hash)).all()).toEqual([{ channel: "sms" }]);

    const { token } = await signInAs("owner");
    const other = uniquePhone();
    const created = await call("/api/admin/campaigns", {
      token,
      body: { idempotencyKey: uniqueTag("k"), source: "list", channel: "sms", purpose: "service", message: "Your blocks", phones: [user.phone, other] },
    });
    expect(created.status).toBe(201);
    const campaignId = (await json(created)).campaign.id as number;
    const { queue, workerEnv } = queueEnv();
    await runJobs(workerEnv, [{ kind: "expand", campaignId }]);
    const after = await lastOutboxId();
    await runJobs(
      workerEnv,
      queue.jobs.filter((j) => j.job.kind === "dispatch").map((j) => j.job),
    );
    const rows = await db.select().from(campaignMessages).where(eq(campaignMessages.campaignId, campaignId)).all();
    const byPhone = Object.fromEntries(rows.map((r) => [r.phone, r]));
    expect(byPhone[user.phone]).toMatchObject({ status: "skipped", errorCode: "opted_out" });
    expect(byPhone[other]?.status).toBe("sent");
    const sent = await db.select({ to: outbox.to }).from(outbox).where(sql`${outbox.id} > ${after}`).all();
    expect(sent.map((s) => s.to)).not.toContain(user.phone);
    // Now that the number is with us again, its opt-out is a plain one again (and the hash is gone).
    expect(await db.select({ channel: optOuts.channel }).from(optOuts).where(eq(optOuts.phone, user.phone)).all()).toEqual([{ channel: "sms" }]);
    expect(await db.select().from(optOutHashes).where(eq(optOutHashes.hash, hash)).all()).toEqual([]);
  });

  it("a START from the number opts it back in, as for any number", async () => {
    const user = await createUser({ smsOptOut: true });
    await db.insert(optOuts).values({ phone: user.phone, channel: "sms", keyword: "STOP" });
    await eraseAccount(db, env, user.id, { by: "self", actorId: user.id });
    const path = "/api/webhooks/twilio/inbound";
    const form = new URLSearchParams({ From: user.phone, To: "+15005550006", Body: "START", MessageSid: uniqueTag("SM") });
    const res = await api(path, {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Twilio-Signature": await twilioSignature(env.TWILIO_AUTH_TOKEN, `https://bp.test${path}`, form),
      },
      body: form.toString(),
    });
    expect(await res.text()).toContain("you will receive our messages again");
    expect(await db.select().from(optOuts).where(eq(optOuts.phone, user.phone)).all()).toEqual([]);
    expect(
      await db
        .select()
        .from(optOutHashes)
        .where(eq(optOutHashes.hash, await phoneHash(env.PASSWORD_PEPPER, user.phone)))
        .all(),
    ).toEqual([]);
  });

  it("a friend's invitation is answered as for any number and never texted to it", async () => {
    const user = await createUser({ smsOptOut: true });
    await eraseAccount(db, env, user.id, { by: "self", actorId: user.id });
    const friend = await seedUser();
    const { idToken } = await signIn(friend);
    const res = await call("/api/invitations", { token: idToken, body: { phoneNumber: user.phone } });
    expect(res.status).toBe(201);
    // A stranger invited after it is texted; by then the erased number's text would have gone too.
    const stranger = uniquePhone();
    expect((await call("/api/invitations", { token: idToken, body: { phoneNumber: stranger } })).status).toBe(201);
    await nextSms(stranger);
    expect(await db.select().from(outbox).where(eq(outbox.to, user.phone))).toEqual([]);
    expect(await db.select().from(optOuts).where(eq(optOuts.phone, user.phone))).not.toEqual([]);
  });

  it("stays opted out when the number registers again", async () => {
    const user = await createUser({ smsOptOut: true, whatsappOptOut: true });
    await eraseAccount(db, env, user.id, { by: "self", actorId: user.id });
    const res = await call("/api/auth/register", {
      body: { phoneNumber: user.phone, app: "flex", name: "Back Again", password: PASSWORD, language: "en" },
    });
    expect(res.status).toBeLessThan(300);
    const again = await db
      .select()
      .from(users)
      .where(and(eq(users.phone, user.phone), eq(users.app, "flex")))
      .get();
    expect(again).toMatchObject({ smsOptOut: true, whatsappOptOut: true });
    expect(again?.id).not.toBe(user.id);
  });
});

describe("an erased account in a campaign's audience", () => {
  it("is no recipient: its row has no number", async () => {
    const day = new Date(Date.UTC(1990 + Math.floor(Math.random() * 10), Math.floor(Math.random() * 12), 1 + Math.floor(Math.random() * 28), 12));
    const date = day.toISOString().slice(0, 10);
    const kept = await createUser({ createdAt: day.getTime() });
    const gone = await createUser({ createdAt: day.getTime() });
    await eraseAccount(db, env, gone.id, { by: "self", actorId: gone.id });
    const { token } = await signInAs("owner");
    const res = await call("/api/admin/campaigns", {
      token,
      body: {
        idempotencyKey: uniqueTag("k"),
        source: "drivers",
        channel: "sms",
        purpose: "service",
        message: "Your week",
        audience: { app: "flex", startDate: date, endDate: date, timeZone: "UTC" },
      },
    });
    expect(res.status).toBe(201);
    expect((await json(res)).campaign.total).toBe(1);
    expect(kept.id).not.toBe(gone.id);
  });
});

describe("an account erased in its first day", () => {
  it("is not filed as a drop-off lead by the cron", async () => {
    const now = Date.now();
    const user = await createUser({ createdAt: now - 25 * 3_600_000, phoneVerified: false });
    await eraseAccount(db, env, user.id, { by: "self", actorId: user.id });
    await fileDropOffLeads(db, now);
    expect(await db.select().from(leads).where(eq(leads.userId, user.id)).all()).toEqual([]);
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

describe("downloading my data", () => {
  it("is one JSON attachment with every section", async () => {
    const d = await populatedDriver();
    const res = await call("/api/account/export", { token: d.tokens.idToken });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Disposition")).toBe('attachment; filename="blockpilot-data.json"');
    const body = await json(res);
    expect(body.profile).toMatchObject({ id: d.user.id, phoneNumber: d.phone, name: d.name, email: d.email });
    // The platform names the account by its customer id and name (no email comes back).
    expect(body.platformConnection).toMatchObject(d.platformAccount);
    expect(body.filters.stations).toHaveLength(1);
    expect(body.stationZones).toEqual([{ app: "flex", stationId: d.stationZone.stationId, timeZone: "America/Chicago" }]);
    expect(body.offers).toMatchObject({ total: 1, truncated: false, limit: 10_000 });
    expect(body.payments.rows).toEqual([expect.objectContaining({ id: d.paymentId, amountCents: 4900 })]);
    expect(body.serviceTime.rows).toHaveLength(1);
    expect(body.invitations.rows).toEqual([expect.objectContaining({ phoneNumber: d.friend })]);
    expect(body.consent.history.rows).toEqual([expect.objectContaining({ kind: "consent", basis: "express" })]);
    expect(body.consent.optOuts).toEqual([expect.objectContaining({ channel: "sms" })]);
    expect(body.reseller).toMatchObject({ status: "applied" });
    // No secret is in it.
    expect(JSON.stringify(body)).not.toMatch(/passwordHash|mfaSecret|sealed|codeHash|pbkdf2/);
    await captureSessionOf(env, d.user.id).stop(d.user.id);
  });
});
