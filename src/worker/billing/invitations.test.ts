import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { consentEvents, invitations, optOuts, outbox, serviceTimeLedger, users } from "../db/schema";
import { driver, openCheckout, payLocally, postEvent, sessionObject, stripeEvent, testPlan, userRow } from "../test/billing-fixtures";
import { call, codeIn, db, json, lastOutboxId, nextSms, PASSWORD, tokenFor, typed, uniquePhone } from "../test/fixtures";
import { DAY_MS } from "./service-time";

function invite(token: string, phoneNumber: string) {
  return call("/api/invitations", { token, body: { phoneNumber } });
}

/** The friend registers with the invite link's code and confirms the phone with the texted code and their password. */
async function register(phone: string, ref: string) {
  const before = await lastOutboxId();
  const res = await call("/api/auth/register", {
    body: { phoneNumber: phone, password: PASSWORD, name: "Fran Friend", app: "flex", referralCode: ref, language: "en" },
  });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${await res.text()}`);
  const code = codeIn((await nextSms(phone, before)).body);
  const confirmed = await call("/api/auth/confirm", { body: { phoneNumber: phone, app: "flex", code, password: PASSWORD } });
  if (confirmed.status !== 200) throw new Error(`confirm failed: ${confirmed.status} ${await confirmed.text()}`);
  const friend = (await db
    .select()
    .from(users)
    .where(and(eq(users.app, "flex"), eq(users.phone, phone)))
    .get())!;
  return { ...friend, token: await tokenFor(friend) };
}

async function friendPays(friend: Awaited<ReturnType<typeof register>>) {
  const { sessionId, payment } = await openCheckout(friend, (await testPlan()).id);
  expect((await payLocally(sessionId, "4242424242424242")).status).toBe(200);
  return payment;
}

async function states(token: string) {
  const body = await json(await call("/api/invitations", { token }));
  return body as { total: number; rows: { phoneNumber: string; state: string }[]; summary: Record<string, number> };
}

describe("POST /api/invitations", () => {
  it("texts the friend in the inviter's language, with a sign-up link carrying the inviter's code", async () => {
    const inviter = await driver({ name: "Inés", language: "es" });
    const phone = uniquePhone();
    const res = await invite(inviter.token, typed(phone));
    expect(res.status).toBe(201);
    expect((await json(res)).invitation).toMatchObject({ phoneNumber: phone, state: "invited" });
    const sms = await nextSms(phone);
    expect(sms.body).toContain("Inés te invitó a Blockpilot");
    expect(sms.body).toContain(`https://bp.test/register?ref=${inviter.inviteCode}`);
    const list = await states(inviter.token);
    expect(list.rows).toEqual([expect.objectContaining({ phoneNumber: phone, state: "invited" })]);
    expect(list.summary).toMatchObject({ invited: 1, remainingToday: 19 });
    // The consent ledger marks how we got the number: a friend's invitation, which allows no marketing.
    const ledger = await db.select().from(consentEvents).where(eq(consentEvents.phone, phone));
    expect(ledger).toEqual([
      expect.objectContaining({ kind: "consent", basis: "invitation", source: "invitation", actorId: inviter.id, language: "es", text: null }),
    ]);
  });

  it("refuses the inviter's own number, an existing driver, an opted-out number and a repeat, sending nothing", async () => {
    const inviter = await driver();
    const existing = await driver();
    const optedOut = uniquePhone();
    await db.insert(optOuts).values({ phone: optedOut, channel: "sms", keyword: "STOP" });
    const already = uniquePhone();
    expect((await invite(inviter.token, already)).status).toBe(201);
    const cases: [string, number, string][] = [
      [inviter.phone, 422, "self"],
      [existing.phone, 409, "existing_driver"],
      [optedOut, 422, "opted_out"],
      [already, 409, "already_invited"],
    ];
    for (const [phone, status, reason] of cases) {
      const res = await invite(inviter.token, phone);
      expect(res.status, reason).toBe(status);
      expect((await json(res)).error.details.reason).toBe(reason);
    }
    const texts = await db.select().from(outbox).where(eq(outbox.to, optedOut));
    expect(texts).toEqual([]);
    expect((await states(inviter.token)).total).toBe(1);
  });

  it("allows 20 a day, also when sent at once", async () => {
    const inviter = await driver();
    const answers = await Promise.all(Array.from({ length: 25 }, () => invite(inviter.token, uniquePhone())));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    const refused = answers.find((r) => r.status === 429)!;
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(86_000);
    expect((await states(inviter.token)).summary.remainingToday).toBe(0);
  });
});

describe("the free week", () => {
  it("invited → registered → paid: the inviter earns 7 days once and a text saying so", async () => {
    const inviter = await driver({ expirationAt: Date.now() + 3 * DAY_MS, goodStanding: true });
    const phone = uniquePhone();
    await invite(inviter.token, phone);
    const friend = await register(phone, inviter.inviteCode);
    expect(friend.invitedBy).toBe(inviter.id);
    expect((await states(inviter.token)).rows[0]!.state).toBe("registered");

    await friendPays(friend);
    expect((await states(inviter.token)).rows[0]!.state).toBe("free_week");
    const after = await userRow(inviter.id);
    expect(after.expirationAt! - inviter.expirationAt!).toBe(7 * DAY_MS);
    const sms = await nextSms(inviter.phone);
    expect(sms.body).toContain("you earned a free week");
    const row = (await db.select().from(invitations).where(eq(invitations.inviterId, inviter.id)).get())!;
    expect(row).toMatchObject({ freeWeek: true, inviteeId: friend.id });

    // The friend's next payment earns nothing more.
    await friendPays(friend);
    expect((await userRow(inviter.id)).expirationAt).toBe(after.expirationAt);
    const weeks = await db
      .select()
      .from(serviceTimeLedger)
      .where(and(eq(serviceTimeLedger.userId, inviter.id), eq(serviceTimeLedger.kind, "free_week")));
    expect(weeks).toHaveLength(1);
  });

  it("is granted once when the friend's payment events arrive five times at once", async () => {
    const inviter = await driver();
    const phone = uniquePhone();
    await invite(inviter.token, phone);
    const friend = await register(phone, inviter.inviteCode);
    const { payment } = await openCheckout(friend, (await testPlan()).id);
    await Promise.all(Array.from({ length: 5 }, () => postEvent(stripeEvent("checkout.session.completed", sessionObject(payment)))));
    const weeks = await db
      .select()
      .from(serviceTimeLedger)
      .where(and(eq(serviceTimeLedger.userId, inviter.id), eq(serviceTimeLedger.kind, "free_week")));
    expect(weeks).toHaveLength(1);
    expect((await userRow(inviter.id)).expirationAt).toBe(weeks[0]!.expirationAfter);
  });

  it("goes to the inviter whose link the friend used; a friend who came by link alone counts too", async () => {
    const first = await driver();
    const second = await driver();
    const phone = uniquePhone();
    await invite(first.token, phone);
    await invite(second.token, phone);
    const friend = await register(phone, second.inviteCode.toLowerCase());
    await friendPays(friend);
    expect((await userRow(second.id)).expirationAt).not.toBeNull();
    expect((await userRow(first.id)).expirationAt).toBeNull();
    expect((await states(first.token)).rows[0]!.state).toBe("paid");

    const linkOwner = await driver();
    const stranger = await register(uniquePhone(), linkOwner.inviteCode);
    expect((await states(linkOwner.token)).rows).toEqual([expect.objectContaining({ phoneNumber: stranger.phone, state: "registered" })]);
    await friendPays(stranger);
    expect((await states(linkOwner.token)).rows[0]!.state).toBe("free_week");
  });

  it("still counts for an inviter who opted out of texts, without texting them", async () => {
    const inviter = await driver({ smsOptOut: true });
    const phone = uniquePhone();
    await invite(inviter.token, phone);
    await friendPays(await register(phone, inviter.inviteCode));
    expect((await userRow(inviter.id)).expirationAt).not.toBeNull();
    expect(await db.select().from(outbox).where(eq(outbox.to, inviter.phone))).toEqual([]);
  });
});
