/**
 * The one budget of texts sent on someone's request (sms-budget.ts): only texts really sent spend
 * it, an untexted request does the same D1 work, the last 20 % is kept for confirmed accounts'
 * sign-in and MFA, and invitations, temporary passwords and courtesy texts spend it too.
 */
import { env } from "cloudflare:test";
import { eq, inArray } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sendCourtesySms } from "../billing/notify";
import { billingContext } from "../billing/run-context";
import { invitations, outbox, rateLimits, users } from "../db/schema";
import { createLogger } from "../log";
import {
  call,
  db,
  json,
  lastOutboxId,
  nextSms,
  PASSWORD,
  seedAdmin,
  seedUser,
  signInAdmin,
  tokenFor,
  typed,
  uniqueAddress,
  uniquePhone,
} from "../test/fixtures";
import { deliverCode, type IdentityDeps } from "./code-delivery";
import { REQUESTED_SMS_BUDGET_KEY, REQUESTED_SMS_BUDGET_WINDOW_MS, UNTEXTED_REQUESTS_KEY } from "./rate-limit";
import { requestedSmsShares } from "./sms-budget";

const BUDGET = Number(env.CODE_SMS_HOURLY_BUDGET);
const shares = requestedSmsShares(BUDGET);

/** The budget's window is one row for every request: each test starts it afresh and leaves it so. */
const clearBudget = () => db.delete(rateLimits).where(inArray(rateLimits.key, [REQUESTED_SMS_BUDGET_KEY, UNTEXTED_REQUESTS_KEY]));
beforeEach(clearBudget);
afterEach(async () => {
  vi.restoreAllMocks();
  await clearBudget();
});

async function spent(key = REQUESTED_SMS_BUDGET_KEY): Promise<number> {
  const row = await db.select().from(rateLimits).where(eq(rateLimits.key, key)).get();
  return row && row.resetAt > Date.now() ? row.count : 0;
}

/** As if `count` texts had gone out this hour. */
async function alreadySpent(count: number) {
  await db.insert(rateLimits).values({ key: REQUESTED_SMS_BUDGET_KEY, count, resetAt: Date.now() + REQUESTED_SMS_BUDGET_WINDOW_MS });
}

const post = (path: string, body: unknown, token?: string) => call(path, { body, token });
const phoneAndApp = (phone: string) => ({ phoneNumber: phone, app: "flex" });

describe("the budget of requested texts", () => {
  it("is spent only by texts really sent: unknown and already-confirmed phones leave it alone", async () => {
    const confirmed = await seedUser();
    const unknown = uniquePhone();
    expect((await post("/api/auth/resend-code", phoneAndApp(unknown))).status).toBe(200);
    expect((await post("/api/auth/resend-code", phoneAndApp(confirmed.phone))).status).toBe(200);
    expect((await post("/api/auth/forgot-password", phoneAndApp(uniquePhone()))).status).toBe(200);
    expect((await post("/api/auth/sign-in", { ...phoneAndApp(uniquePhone()), method: "sms" })).status).toBe(200);
    expect(await spent()).toBe(0);
    // The same writes, under a key of their own.
    expect(await spent(UNTEXTED_REQUESTS_KEY)).toBe(4);

    // A text that goes out is charged.
    const before = await lastOutboxId();
    expect((await post("/api/auth/forgot-password", phoneAndApp(confirmed.phone))).status).toBe(200);
    await nextSms(confirmed.phone, before);
    expect(await spent()).toBe(1);
  });

  it("does the same D1 work for a code that is texted and one that is not", async () => {
    const deps = (): IdentityDeps => ({
      db,
      env,
      config: { CODE_SMS_HOURLY_BUDGET: BUDGET },
      log: createLogger(),
      address: uniqueAddress(),
      waitUntil: () => {},
      now: Date.now(),
    });
    const work = async (send: boolean) => {
      const batches = vi.spyOn(db, "batch");
      const selects = vi.spyOn(db, "select");
      const inserts = vi.spyOn(db, "insert");
      await deliverCode(deps(), { app: "flex", phone: uniquePhone(), purpose: "sign-in", language: "en", send, mayUseReserve: true });
      const done = {
        batches: batches.mock.calls.map(([statements]) => (statements as unknown as unknown[]).length),
        selects: selects.mock.calls.length,
        inserts: inserts.mock.calls.length,
      };
      vi.restoreAllMocks();
      return done;
    };
    const texted = await work(true);
    const untexted = await work(false);
    expect(untexted).toEqual(texted);
    expect(texted.batches).toEqual([5]);
    expect(await spent()).toBe(1);
    expect(await spent(UNTEXTED_REQUESTS_KEY)).toBe(1);
  });

  it("keeps the last 20 % for confirmed accounts' SMS sign-in and SMS MFA", async () => {
    const confirmed = await seedUser();
    const withSmsMfa = await seedUser({ mfaMethod: "sms" });
    const unconfirmed = await seedUser({ phoneVerified: false });
    await alreadySpent(shares.open);

    // Everything outside the reserve stops at 80 %, for every number alike.
    const register = await post("/api/auth/register", { phoneNumber: typed(uniquePhone()), password: PASSWORD, name: "New Driver", app: "flex" });
    expect(register.status).toBe(429);
    expect((await post("/api/auth/resend-code", phoneAndApp(unconfirmed.phone))).status).toBe(429);
    expect((await post("/api/auth/resend-code", phoneAndApp(uniquePhone()))).status).toBe(429);
    expect((await post("/api/auth/forgot-password", phoneAndApp(confirmed.phone))).status).toBe(429);
    expect((await post("/api/auth/forgot-password", phoneAndApp(uniquePhone()))).status).toBe(429);

    // Confirmed accounts still get their sign-in and MFA codes; an unknown phone answers as they do.
    let before = await lastOutboxId();
    expect((await post("/api/auth/sign-in", { ...phoneAndApp(confirmed.phone), method: "sms" })).status).toBe(200);
    await nextSms(confirmed.phone, before);
    expect((await post("/api/auth/sign-in", { ...phoneAndApp(uniquePhone()), method: "sms" })).status).toBe(200);
    before = await lastOutboxId();
    const mfa = await json(await post("/api/auth/sign-in", { ...phoneAndApp(withSmsMfa.phone), password: PASSWORD }));
    expect(mfa.challenge).toBe("SMS_MFA");
    await nextSms(withSmsMfa.phone, before);
    expect(await spent()).toBe(shares.open + 2);

    // The whole budget spent: nothing more.
    await clearBudget();
    await alreadySpent(BUDGET);
    expect((await post("/api/auth/sign-in", { ...phoneAndApp(confirmed.phone), method: "sms" })).status).toBe(429);
    expect((await post("/api/auth/sign-in", { ...phoneAndApp(uniquePhone()), method: "sms" })).status).toBe(429);
  });
});

describe("every text sent on someone's request spends the same budget", () => {
  it("invitations, administrators' temporary passwords and courtesy texts are charged", async () => {
    const inviter = await seedUser();
    const inviterToken = await tokenFor(inviter);
    const admin = await seedAdmin();
    const adminToken = (await signInAdmin(admin)).idToken;

    expect((await post("/api/invitations", { phoneNumber: uniquePhone() }, inviterToken)).status).toBe(201);
    expect(await spent()).toBe(1);
    expect((await post("/api/admin/users", { phoneNumber: uniquePhone(), app: "flex", name: "Walk-in Driver" }, adminToken)).status).toBe(201);
    expect(await spent()).toBe(2);
    const courtesy = await seedUser();
    const ctx = billingContext({ env, var: { db, log: createLogger() }, executionCtx: { waitUntil: () => {} } } as never);
    await sendCourtesySms(ctx, courtesy.phone, "Blockpilot: a courtesy text", "test.courtesy");
    expect(await spent()).toBe(3);
  });

  it("refuses them past the open share, sending and keeping nothing", async () => {
    const inviter = await seedUser();
    const inviterToken = await tokenFor(inviter);
    const admin = await seedAdmin();
    const adminToken = (await signInAdmin(admin)).idToken;
    await alreadySpent(shares.open);

    const friend = uniquePhone();
    expect((await post("/api/invitations", { phoneNumber: friend }, inviterToken)).status).toBe(429);
    expect(await db.select().from(invitations).where(eq(invitations.inviterId, inviter.id))).toEqual([]);
    const walkIn = uniquePhone();
    expect((await post("/api/admin/users", { phoneNumber: walkIn, app: "flex", name: "Walk-in Driver" }, adminToken)).status).toBe(429);
    expect(await db.select().from(users).where(eq(users.phone, walkIn))).toEqual([]);
    const courtesy = await seedUser();
    const ctx = billingContext({ env, var: { db, log: createLogger() }, executionCtx: { waitUntil: () => {} } } as never);
    await sendCourtesySms(ctx, courtesy.phone, "Blockpilot: a courtesy text", "test.courtesy");
    expect(
      await db
        .select()
        .from(outbox)
        .where(inArray(outbox.to, [friend, walkIn, courtesy.phone])),
    ).toEqual([]);
    expect(await spent()).toBe(shares.open);
  });
});
