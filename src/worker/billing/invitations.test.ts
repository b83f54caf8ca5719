import { env } from "cloudflare:test";
import { and, eq, inArray } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { RATE_LIMITS } from "../auth/rate-limit";
import { consentEvents, invitations, optOuts, outbox, serviceTimeLedger, users } from "../db/schema";
import { driver, openCheckout, payLocally, postEvent, sessionObject, stripeEvent, testPlan, userRow } from "../test/billing-fixtures";
import { call, codeIn, createUser, db, json, lastOutboxId, nextSms, PASSWORD, tokenFor, typed, uniqueAddress, uniquePhone } from "../test/fixtures";
import { INVITATIONS_PER_DAY } from "./invitations";
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
  it("texts the friend in the inviter's language: fixed words, the first name, a link from APP_ORIGIN", async () => {
    const inviter = await driver({ name: "Inés Ramírez http://x.example", language: "es" });
    const phone = uniquePhone();
    // The request came to https://bp.test: links point to APP_ORIGIN, never to a request's own origin.
    const res = await invite(inviter.token, typed(phone));
    expect(res.status).toBe(201);
    expect((await json(res)).invitation).toMatchObject({ phoneNumber: phone, state: "invited" });
    const sms = await nextSms(phone);
    expect(sms.body).toBe(
      `Blockpilot: Inés te invita a buscar bloques de reparto: ${env.APP_ORIGIN}/register?ref=${inviter.inviteCode} Responde STOP para cancelar.`,
    );
    const list = await states(inviter.token);
    expect(list.rows).toEqual([expect.objectContaining({ phoneNumber: phone, state: "invited" })]);
    expect(list.summary).toMatchObject({ invited: 1, remainingToday: 19 });
    expect(((await json(await call("/api/invitations", { token: inviter.token }))) as { inviteLink: string }).inviteLink).toBe(
      `${env.APP_ORIGIN}/register?ref=${inviter.inviteCode}`,
    );
    // The consent ledger marks how we got the number: a friend's invitation, which allows no marketing.
    await vi.waitFor(async () =>
      expect(await db.select().from(consentEvents).where(eq(consentEvents.phone, phone))).toEqual([
        expect.objectContaining({ kind: "consent", basis: "invitation", source: "invitation", actorId: inviter.id, language: "es", text: null }),
      ]),
    );
  });

  it("names no one when the inviter's first name is not a plain name", async () => {
    for (const name of ["http://evil.example/win", "Ana2", "😀 Bob", "Bartholomew-Maximilian Jones"]) {
      const inviter = await driver({ name });
      const phone = uniquePhone();
      expect((await invite(inviter.token, phone)).status).toBe(201);
      expect((await nextSms(phone)).body).toMatch(/^Blockpilot: a friend invites you to find delivery blocks with us: /);
    }
  });

  it("answers every number the same: a driver's, an opted-out one and a stranger's; only the stranger is texted", async () => {
    const inviter = await driver();
    const existing = await driver();
    const optedOut = uniquePhone();
    await db.insert(optOuts).values({ phone: optedOut, channel: "sms", keyword: "STOP" });
    const optedOutDriver = await driver({ smsOptOut: true });
    const stranger = uniquePhone();
    const answers: unknown[] = [];
    for (const phone of [existing.phone, optedOut, optedOutDriver.phone, stranger]) {
      const res = await invite(inviter.token, phone);
      expect(res.status).toBe(201);
      const { invitation } = await json(res);
      answers.push({ ...invitation, id: typeof invitation.id, invitedAt: typeof invitation.invitedAt, phoneNumber: typeof invitation.phoneNumber });
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    await nextSms(stranger);
    expect(
      await db
        .select()
        .from(outbox)
        .where(inArray(outbox.to, [existing.phone, optedOut, optedOutDriver.phone])),
    ).toEqual([]);
    expect(
      await db
        .select()
        .from(consentEvents)
        .where(inArray(consentEvents.phone, [existing.phone, optedOut, optedOutDriver.phone])),
    ).toEqual([]);
    // The list tells the inviter no more: a number that was a driver already stays "invited".
    const list = await states(inviter.token);
    expect(list.rows.map((r) => r.state)).toEqual(["invited", "invited", "invited", "invited"]);
    expect(list.summary).toMatchObject({ invited: 4, registered: 0, remainingToday: 16 });
  });

  it("refuses only the inviter's own number and a repeat", async () => {
    const inviter = await driver();
    const already = uniquePhone();
    expect((await invite(inviter.token, already)).status).toBe(201);
    for (const [phone, status, reason] of [
      [inviter.phone, 422, "self"],
      [already, 409, "already_invited"],
    ] as const) {
      const res = await invite(inviter.token, phone);
      expect(res.status, reason).toBe(status);
      expect((await json(res)).error.details.reason).toBe(reason);
    }
    expect((await states(inviter.token)).total).toBe(1);
  });

  it("counts drivers' numbers against the daily limit, which applies before anything is looked up", async () => {
    const inviter = await driver();
    for (let i = 0; i < INVITATIONS_PER_DAY; i++) expect((await invite(inviter.token, (await createUser()).phone)).status).toBe(201);
    const refused = await invite(inviter.token, (await createUser()).phone);
    expect(refused.status).toBe(429);
    expect((await json(refused)).error.details.reason).toBe("daily_limit");
    expect((await invite(inviter.token, uniquePhone())).status).toBe(429);
  });

  it("limits each client address, whichever drivers sign the requests, before anything is looked up", async () => {
    const address = uniqueAddress();
    const { limit } = RATE_LIMITS.invitePerAddress;
    for (let i = 0; i < limit; i++) {
      const inviter = await driver();
      expect((await call("/api/invitations", { token: inviter.token, body: { phoneNumber: uniquePhone() }, address })).status).toBe(201);
    }
    const another = await driver();
    const existing = await driver();
    for (const phone of [existing.phone, uniquePhone()]) {
      expect((await call("/api/invitations", { token: another.token, body: { phoneNumber: phone }, address })).status).toBe(429);
    }
    expect((await states(another.token)).total).toBe(0);
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

  it("is not earned by inviting someone who was a driver already", async () => {
    const inviter = await driver();
    const already = await driver();
    expect((await invite(inviter.token, already.phone)).status).toBe(201);
    await friendPays(already);
    expect((await userRow(inviter.id)).expirationAt).toBeNull();
    expect((await states(inviter.token)).rows[0]!.state).toBe("invited");
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
