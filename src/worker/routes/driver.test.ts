import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { RATE_LIMITS } from "../auth/rate-limit";
import { startRefreshFamily } from "../auth/refresh-tokens";
import { openSecret } from "../auth/secret-box";
import { idTokenFor } from "../auth/sign-in-flow";
import { driverFilters, platformAccounts, platformSignIns, users } from "../db/schema";
import { captureSessionOf } from "../platform/capture";
import { resellerWithClient } from "../test/billing-fixtures";
import { connectedDriver, defaultWorld, recordWonBlock } from "../test/connected-driver";
import { waitForRecords } from "../test/engine-fixtures";
import { connectThroughPage } from "../test/fake-platform-world";
import { call, db, json, seedAdmin, seedUser, signIn, signInAdmin, uniqueAddress } from "../test/fixtures";

const HOUR = 3_600_000;
const running: number[] = [];
afterEach(async () => {
  for (const id of running.splice(0)) await captureSessionOf(env, id).stop(id);
});

let accounts = 0;
/**
 * A Spark driver signed in to Blockpilot, with a platform account (not yet connected) in the fake's
 * default world: Spark keeps the modelled email-and-password sign-in (Flex's hand-off through the
 * platform's page is in driver-connection.test.ts).
 */
async function newDriver(challenge: "none" | "code" | "approval" = "none", user: Parameters<typeof seedUser>[0] = {}) {
  const email = `route-${Date.now().toString(36)}-${accounts++}@example.com`;
  await defaultWorld().control("accounts", { email, password: "platform-pw", challenge, offersRate: null });
  const row = await seedUser({ app: "spark", expirationAt: Date.now() + 7 * 86_400_000, goodStanding: true, ...user });
  const { idToken } = await signIn(row);
  return { user: row, email, token: idToken };
}

const userRow = (id: number) => db.select().from(users).where(eq(users.id, id)).get();

describe("connecting a Spark account (the modelled sign-in)", () => {
  it("without a challenge: connected at once, tokens sealed and never answered", async () => {
    const d = await newDriver();
    const res = await call("/api/driver/connection", { token: d.token, body: { email: d.email, password: "platform-pw" } });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ status: "connected" });
    expect((await userRow(d.user.id))?.accountConnected).toBe(true);
    const stored = await db.select().from(platformAccounts).where(eq(platformAccounts.userId, d.user.id)).get();
    expect(stored?.sealedTokens).toMatch(/^v1\./);
    // Sealed: the tokens are inside (opened with the key) but not readable in the row. Not a search
    // for "AT"/"RT" in the ciphertext, which random base64 contains about one run in eight.
    const opened = JSON.parse(await openSecret(stored!.sealedTokens!, env.MFA_ENCRYPTION_KEY)) as { accessToken: string; refreshToken: string };
    expect(opened.accessToken).toMatch(/^AT/);
    expect(opened.refreshToken).toMatch(/^RT/);
    expect(stored?.sealedTokens).not.toContain(opened.accessToken);
    expect(stored?.sealedTokens).not.toContain(opened.refreshToken);
    expect(JSON.stringify(stored)).not.toContain("platform-pw");
    const status = await json(await call("/api/driver/connection", { token: d.token }));
    expect(status).toMatchObject({ connected: true, accountName: d.email, pending: null });
    expect(JSON.stringify(status)).not.toMatch(/accessToken|refreshToken|sealed/);
  });

  it("a wrong password is a 422 and stores nothing", async () => {
    const d = await newDriver();
    const res = await call("/api/driver/connection", { token: d.token, body: { email: d.email, password: "nope" } });
    expect(res.status).toBe(422);
    expect(await json(res)).toMatchObject({
      error: { code: "unprocessable", message: "Platform email or password incorrect", details: { reason: "refused" } },
    });
    expect(await db.select().from(platformAccounts).where(eq(platformAccounts.userId, d.user.id)).get()).toBeUndefined();
    expect((await userRow(d.user.id))?.accountConnected).toBe(false);
  });

  it("a code challenge: 202 with the attempt, a wrong code refused, the right one connects", async () => {
    const d = await newDriver("code");
    const res = await call("/api/driver/connection", { token: d.token, body: { email: d.email, password: "platform-pw" } });
    expect(res.status).toBe(202);
    const step = await json(res);
    expect(step).toMatchObject({ status: "code", destination: expect.stringContaining("@example.com") });
    expect((await json(await call("/api/driver/connection", { token: d.token }))).pending).toMatchObject({ attemptId: step.attemptId, kind: "code" });
    const wrong = await call("/api/driver/connection/code", { token: d.token, body: { attemptId: step.attemptId, code: "000000" } });
    expect(wrong.status).toBe(422);
    const code = await defaultWorld().code(d.email);
    const right = await call("/api/driver/connection/code", { token: d.token, body: { attemptId: step.attemptId, code } });
    expect(await json(right)).toEqual({ status: "connected" });
    expect(await db.select().from(platformSignIns).where(eq(platformSignIns.userId, d.user.id)).all()).toEqual([]);
  });

  it("another driver cannot answer someone's attempt", async () => {
    const d = await newDriver("code");
    const other = await newDriver();
    const step = await json(await call("/api/driver/connection", { token: d.token, body: { email: d.email, password: "platform-pw" } }));
    const res = await call("/api/driver/connection/code", {
      token: other.token,
      body: { attemptId: step.attemptId, code: await defaultWorld().code(d.email) },
    });
    expect(res.status).toBe(404);
  });

  it("an approval challenge: pending until approved, then connected; or cancelled", async () => {
    const d = await newDriver("approval");
    const step = await json(await call("/api/driver/connection", { token: d.token, body: { email: d.email, password: "platform-pw" } }));
    expect(step.status).toBe("approval");
    expect(await json(await call("/api/driver/connection/approval", { token: d.token, body: { attemptId: step.attemptId } }))).toEqual({ status: "pending" });
    await defaultWorld().control("approve", { email: d.email });
    expect(await json(await call("/api/driver/connection/approval", { token: d.token, body: { attemptId: step.attemptId } }))).toEqual({ status: "connected" });

    const e = await newDriver("approval");
    const again = await json(await call("/api/driver/connection", { token: e.token, body: { email: e.email, password: "platform-pw" } }));
    expect((await call(`/api/driver/connection/attempts/${again.attemptId}`, { token: e.token, method: "DELETE" })).status).toBe(200);
    expect((await call("/api/driver/connection/approval", { token: e.token, body: { attemptId: again.attemptId } })).status).toBe(404);
  });

  it("a denied approval ends the attempt with a 422", async () => {
    const d = await newDriver("approval");
    const step = await json(await call("/api/driver/connection", { token: d.token, body: { email: d.email, password: "platform-pw" } }));
    await defaultWorld().control("approve", { email: d.email, deny: true });
    const res = await call("/api/driver/connection/approval", { token: d.token, body: { attemptId: step.attemptId } });
    expect(res.status).toBe(422);
    expect(await json(res)).toMatchObject({ error: { details: { reason: "challenge_over" } } });
  });

  it("disconnecting stops the system and drops the tokens", async () => {
    const d = await connectedDriver();
    const { idToken } = await signIn(d.user);
    running.push(d.user.id);
    expect((await call("/api/driver/engine", { token: idToken, body: { on: true } })).status).toBe(200);
    const res = await call("/api/driver/connection", { token: idToken, method: "DELETE" });
    expect(res.status).toBe(200);
    const row = await userRow(d.user.id);
    expect(row).toMatchObject({ accountConnected: false, status: "stop" });
    expect(await db.select().from(platformAccounts).where(eq(platformAccounts.userId, d.user.id)).get()).toMatchObject({
      sealedTokens: null,
      disconnectReason: "driver",
    });
  });
});

describe("stations and filters", () => {
  it("lists the platform's stations with zones; refuses before connecting", async () => {
    const d = await connectedDriver({ zones: ["America/Chicago", "America/Phoenix"] });
    const { idToken } = await signIn(d.user);
    const body = await json(await call("/api/driver/stations", { token: idToken }));
    expect(body.stations.map((s: { id: string }) => s.id)).toEqual(expect.arrayContaining(d.stations));
    expect(body.stations.find((s: { id: string }) => s.id === d.stations[1])).toMatchObject({ timeZone: "America/Phoenix" });
    const fresh = await newDriver();
    expect((await call("/api/driver/stations", { token: fresh.token })).status).toBe(409);
  });

  it("saves a valid set and completes setup; refuses bad ones with codes and writes nothing", async () => {
    const d = await connectedDriver({ user: { setupComplete: false } });
    await db.delete(driverFilters).where(eq(driverFilters.userId, d.user.id));
    const { idToken } = await signIn(d.user);
    const valid = {
      stations: [{ id: d.stations[0], minPayCents: 6000, minHourlyCents: null }],
      minPayCents: 5000,
      minHourlyCents: 2000,
      arrivalBufferMinutes: 45,
      minDurationMinutes: 120,
      maxDurationMinutes: 300,
      schedule: { mon: [{ start: "08:00", end: "14:00" }], sat: [{ start: "22:00", end: "04:00" }] },
      dailyCapMinutes: 480,
    };
    const bad = async (body: unknown, code: string) => {
      const res = await call("/api/driver/filters", { token: idToken, method: "PUT", body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(await json(res))).toContain(code);
    };
    await bad({ ...valid, stations: [] }, "stations_required");
    await bad({ ...valid, schedule: {} }, "windows_required");
    await bad({ ...valid, schedule: { mon: [{ start: "8:00", end: "14:00" }] } }, "clock");
    await bad({ ...valid, minDurationMinutes: 400 }, "min_above_max");
    await bad({ ...valid, minPayCents: -1 }, "not_negative");
    await bad({ ...valid, stations: [{ id: "NOPE" }] }, "unknown_station");
    await bad({ ...valid, schedule: { funday: [] } }, "schedule");
    expect(await db.select().from(driverFilters).where(eq(driverFilters.userId, d.user.id)).get()).toBeUndefined();
    expect((await userRow(d.user.id))?.setupComplete).toBe(false);

    const res = await call("/api/driver/filters", { token: idToken, method: "PUT", body: valid });
    expect(res.status).toBe(200);
    expect((await userRow(d.user.id))?.setupComplete).toBe(true);
    expect((await json(await call("/api/driver/filters", { token: idToken }))).filters).toMatchObject(valid);
  });
});

/** A 429 from a platform route: Retry-After, and the same wait in the envelope for the screens to say. */
async function expectRefusedFor(res: Response, atLeastSeconds: number, atMostSeconds: number) {
  expect(res.status).toBe(429);
  const wait = Number(res.headers.get("Retry-After"));
  expect(wait).toBeGreaterThanOrEqual(atLeastSeconds);
  expect(wait).toBeLessThanOrEqual(atMostSeconds);
  expect(await json(res)).toEqual({
    error: { code: "rate_limited", message: "Too many attempts. Try again later", details: { reason: "too_many_attempts", retryAfterSeconds: wait } },
  });
}

describe("limits on what reaches the platform", () => {
  const DAY_S = 86_400;

  it("connecting: 10 a day per driver; the 11th is refused and never reaches the platform, right password or not", async () => {
    const d = await newDriver();
    const { limit } = RATE_LIMITS.platformConnectPerUser;
    for (let i = 0; i < limit; i++) {
      expect((await call("/api/driver/connection", { token: d.token, body: { email: d.email, password: `wrong-${i}` } })).status).toBe(422);
    }
    expect((await defaultWorld().calls(d.email))["POST /auth/sign-in"]).toBe(limit);
    await expectRefusedFor(await call("/api/driver/connection", { token: d.token, body: { email: d.email, password: "platform-pw" } }), DAY_S - 60, DAY_S);
    // Another account's credentials from the same driver: refused too, and not asked about.
    const other = `other-${d.email}`;
    await expectRefusedFor(await call("/api/driver/connection", { token: d.token, body: { email: other, password: "x" } }), DAY_S - 60, DAY_S);
    expect((await defaultWorld().calls(d.email))["POST /auth/sign-in"]).toBe(limit);
    expect(await defaultWorld().calls(other)).toEqual({});
    expect((await userRow(d.user.id))?.accountConnected).toBe(false);
  });

  it("connecting: 30 a day from one client address, whichever drivers try", async () => {
    const address = uniqueAddress();
    const { limit } = RATE_LIMITS.platformConnectPerAddress;
    const perDriver = RATE_LIMITS.platformConnectPerUser.limit;
    let sent = 0;
    while (sent < limit) {
      const d = await newDriver();
      for (let i = 0; i < perDriver && sent < limit; i++, sent++) {
        expect((await call("/api/driver/connection", { token: d.token, address, body: { email: d.email, password: "wrong" } })).status).toBe(422);
      }
    }
    const fresh = await newDriver();
    await expectRefusedFor(
      await call("/api/driver/connection", { token: fresh.token, address, body: { email: fresh.email, password: "platform-pw" } }),
      DAY_S - 60,
      DAY_S,
    );
    expect(await defaultWorld().calls(fresh.email)).toEqual({});
    // The same driver from another address is not held back by that address.
    expect((await call("/api/driver/connection", { token: fresh.token, body: { email: fresh.email, password: "platform-pw" } })).status).toBe(200);
  });

  it("connecting needs a confirmed phone: an unconfirmed account's session is refused before the platform is asked", async () => {
    const email = `unconfirmed-${Date.now().toString(36)}-${accounts++}@example.com`;
    await defaultWorld().control("accounts", { email, password: "platform-pw", offersRate: null });
    const user = await seedUser({ app: "spark", phoneVerified: false });
    const { family } = await startRefreshFamily(db, user.id, { passedTotp: false });
    const token = await idTokenFor(env, user, family, Date.now());
    const res = await call("/api/driver/connection", { token, body: { email, password: "platform-pw" } });
    expect(res.status).toBe(403);
    expect(await json(res)).toMatchObject({ error: { details: { reason: "unconfirmed" } } });
    expect(await defaultWorld().calls(email)).toEqual({});
    expect(await db.select().from(platformAccounts).where(eq(platformAccounts.userId, user.id)).get()).toBeUndefined();
  });

  it("connecting before paying is allowed (docs/product.md: connect, set up, then pay)", async () => {
    const d = await newDriver("none", { expirationAt: null, goodStanding: false });
    expect((await call("/api/driver/connection", { token: d.token, body: { email: d.email, password: "platform-pw" } })).status).toBe(200);
  });

  it("approval: 30 questions a minute per driver; the 31st is refused without asking the platform", async () => {
    const d = await newDriver("approval");
    const step = await json(await call("/api/driver/connection", { token: d.token, body: { email: d.email, password: "platform-pw" } }));
    const { limit } = RATE_LIMITS.platformApprovalPerUser;
    for (let i = 0; i < limit; i++) {
      expect(await json(await call("/api/driver/connection/approval", { token: d.token, body: { attemptId: step.attemptId } }))).toEqual({ status: "pending" });
    }
    expect((await defaultWorld().calls(d.email))["POST /auth/approval"]).toBe(limit);
    await expectRefusedFor(await call("/api/driver/connection/approval", { token: d.token, body: { attemptId: step.attemptId } }), 1, 60);
    expect((await defaultWorld().calls(d.email))["POST /auth/approval"]).toBe(limit);
  });

  it("codes: 10 per driver in 15 minutes; the 11th is refused without asking the platform", async () => {
    const d = await newDriver("code");
    const { limit } = RATE_LIMITS.platformCodePerUser;
    let asked = 0;
    // Five wrong codes end an attempt (the platform's rule): start another when it has.
    let attemptId = "";
    for (let i = 0; i < limit; i++) {
      if (i % 5 === 0)
        attemptId = (await json(await call("/api/driver/connection", { token: d.token, body: { email: d.email, password: "platform-pw" } }))).attemptId;
      expect((await call("/api/driver/connection/code", { token: d.token, body: { attemptId, code: "000000" } })).status).toBe(422);
      asked++;
    }
    expect((await defaultWorld().calls(d.email))["POST /auth/challenge"]).toBe(asked);
    attemptId = (await json(await call("/api/driver/connection", { token: d.token, body: { email: d.email, password: "platform-pw" } }))).attemptId;
    await expectRefusedFor(
      await call("/api/driver/connection/code", { token: d.token, body: { attemptId, code: await defaultWorld().code(d.email) } }),
      1,
      15 * 60,
    );
    expect((await defaultWorld().calls(d.email))["POST /auth/challenge"]).toBe(asked);
  });

  it("stations: read from the platform once, then from D1 for 12 hours; a new connection or an old list reads again", async () => {
    const d = await connectedDriver({ zones: ["America/Chicago", "America/Phoenix"] });
    const { idToken } = await signIn(d.user);
    const reads = async () => (await d.world.calls(d.email))["GET /eligibleServiceAreas"] ?? 0;
    const first = await json(await call("/api/driver/stations", { token: idToken }));
    expect(first.stations.map((s: { id: string }) => s.id)).toEqual(expect.arrayContaining(d.stations));
    expect(await reads()).toBe(1);
    for (let i = 0; i < 3; i++) expect(await json(await call("/api/driver/stations", { token: idToken }))).toEqual(first);
    expect(await reads()).toBe(1);

    // 12 hours on, the list is read again.
    const old = Date.now() - 12 * 3_600_000 - 1000;
    await db.update(platformAccounts).set({ stationsFetchedAt: old }).where(eq(platformAccounts.userId, d.user.id));
    expect(await json(await call("/api/driver/stations", { token: idToken }))).toEqual(first);
    expect(await reads()).toBe(2);
    // Connecting (again, or another account) drops the list.
    expect(await connectThroughPage(idToken, d.email, "pw")).toEqual({ status: "connected" });
    expect(await json(await call("/api/driver/stations", { token: idToken }))).toEqual(first);
    expect(await reads()).toBe(3);
  });

  it("stations: 10 reads from the platform an hour per driver; the 11th is refused without asking", async () => {
    const d = await connectedDriver();
    const { idToken } = await signIn(d.user);
    const reads = async () => (await d.world.calls(d.email))["GET /eligibleServiceAreas"] ?? 0;
    const { limit } = RATE_LIMITS.platformStationsPerUser;
    const expire = () => db.update(platformAccounts).set({ stationsFetchedAt: 0 }).where(eq(platformAccounts.userId, d.user.id));
    for (let i = 0; i < limit; i++) {
      await expire();
      expect((await call("/api/driver/stations", { token: idToken })).status).toBe(200);
    }
    expect(await reads()).toBe(limit);
    await expire();
    await expectRefusedFor(await call("/api/driver/stations", { token: idToken }), 3000, 3600);
    expect(await reads()).toBe(limit);
  });

  it("forfeit and I've arrived: 30 an hour per driver; the 31st is refused without asking the platform", async () => {
    const d = await connectedDriver();
    const { idToken } = await signIn(d.user);
    await db.update(users).set({ status: "start" }).where(eq(users.id, d.user.id));
    const startsAt = Date.now() + 3 * HOUR;
    await recordWonBlock(d, { platformOfferId: `limit-${d.user.id}`, startsAt, blockId: `BLunknown${d.user.id}` });
    const won = ((await json(await call("/api/driver/offers?status=won", { token: idToken }))).rows as { id: number }[])[0];
    const asked = async () => {
      const calls = await d.world.calls(d.email);
      return (calls["POST /schedule/blocks/:id/arrive"] ?? 0) + (calls["DELETE /schedule/blocks/:id"] ?? 0);
    };
    const { limit } = RATE_LIMITS.platformBlockActionPerUser;
    for (let i = 0; i < limit; i++) {
      // The platform does not know the block: each one is asked, and refused.
      const res = await call(`/api/driver/offers/${won!.id}/${i % 2 === 0 ? "arrive" : "forfeit"}`, { token: idToken, method: "POST" });
      expect(res.status).toBe(422);
    }
    expect(await asked()).toBe(limit);
    await expectRefusedFor(await call(`/api/driver/offers/${won!.id}/forfeit`, { token: idToken, method: "POST" }), 3000, 3600);
    await expectRefusedFor(await call(`/api/driver/offers/${won!.id}/arrive`, { token: idToken, method: "POST" }), 3000, 3600);
    expect(await asked()).toBe(limit);
  });
});

describe("the system switch and status", () => {
  it("turns on when connected, set up and paid; says why not otherwise", async () => {
    const d = await connectedDriver();
    const { idToken } = await signIn(d.user);
    running.push(d.user.id);
    const on = await json(await call("/api/driver/engine", { token: idToken, body: { on: true } }));
    expect(on.engine).toMatchObject({ state: "searching", stations: 1 });
    expect((await userRow(d.user.id))?.status).toBe("start");
    const status = await json(await call("/api/driver/engine", { token: idToken }));
    expect(status).toMatchObject({ engine: { state: "searching" }, service: { goodStanding: true } });
    const off = await json(await call("/api/driver/engine", { token: idToken, body: { on: false } }));
    expect(off.engine).toEqual({ state: "stopped", reason: "driver" });

    const expired = await connectedDriver({ user: { expirationAt: Date.now() - 60_000 } });
    const t2 = (await signIn(expired.user)).idToken;
    const res = await call("/api/driver/engine", { token: t2, body: { on: true } });
    expect(res.status).toBe(409);
    expect(await json(res)).toMatchObject({ error: { details: { reason: "expired" } } });
  });
});

describe("offers, blocks and check-in", () => {
  async function withRecords() {
    const d = await connectedDriver({ filters: { minPayCents: 5000 } });
    const { idToken } = await signIn(d.user);
    const soon = Date.now() + 30 * 60_000;
    const later = Date.now() + 5 * HOUR;
    await d.world.offers([
      { serviceAreaId: d.stations[0]!, startsAt: soon, endsAt: soon + 2 * HOUR, payCents: 6000 },
      { serviceAreaId: d.stations[0]!, startsAt: later, endsAt: later + 2 * HOUR, payCents: 7000 },
      { serviceAreaId: d.stations[0]!, startsAt: later + 4 * HOUR, endsAt: later + 6 * HOUR, payCents: 3000 },
    ]);
    running.push(d.user.id);
    await call("/api/driver/engine", { token: idToken, body: { on: true } });
    await waitForRecords(d.user.id, 3);
    return { d, idToken };
  }

  it("pages offers with counts and the filters the why is read against", async () => {
    const { idToken } = await withRecords();
    const all = await json(await call("/api/driver/offers?pageSize=20", { token: idToken }));
    expect(all).toMatchObject({ total: 3, page: 1, pageSize: 20, counts: { won: 2, disliked: 1, gone: 0 }, filters: { minPayCents: 5000 } });
    const disliked = await json(await call("/api/driver/offers?status=disliked", { token: idToken }));
    expect(disliked.rows).toMatchObject([{ status: "disliked", reasons: ["pay"], payCents: 3000 }]);
    expect((await call("/api/driver/offers?status=lost", { token: idToken })).status).toBe(400);
  });

  it("I've arrived: refused while the system is off, accepted near the start while on", async () => {
    const { d, idToken } = await withRecords();
    const rows = (await json(await call("/api/driver/offers?status=won", { token: idToken }))).rows as { id: number; canCheckIn: boolean; startsAt: number }[];
    const near = rows.find((r) => r.canCheckIn)!;
    const far = rows.find((r) => !r.canCheckIn)!;
    const ok = await call(`/api/driver/offers/${near.id}/arrive`, { token: idToken, method: "POST" });
    expect(ok.status).toBe(200);
    expect((await json(ok)).arrivedAt).toBeGreaterThan(0);
    const early = await call(`/api/driver/offers/${far.id}/arrive`, { token: idToken, method: "POST" });
    expect(early.status).toBe(422);
    await call("/api/driver/engine", { token: idToken, body: { on: false } });
    const off = await call(`/api/driver/offers/${near.id}/arrive`, { token: idToken, method: "POST" });
    expect(off.status).toBe(409);
    expect(await json(off)).toMatchObject({ error: { message: "Turn on the system to use I've arrived", details: { reason: "system_off" } } });
    expect(d.user.id).toBeGreaterThan(0);
  });

  it("forfeits a won block on the platform and on the calendar; another driver's block is not found", async () => {
    const { d, idToken } = await withRecords();
    const far = (
      (await json(await call("/api/driver/offers?status=won", { token: idToken }))).rows as { id: number; canForfeit: boolean; startsAt: number }[]
    ).sort((a, b) => b.startsAt - a.startsAt)[0]!;
    const other = await newDriver();
    expect((await call(`/api/driver/offers/${far.id}/forfeit`, { token: other.token, method: "POST" })).status).toBe(404);
    const res = await call(`/api/driver/offers/${far.id}/forfeit`, { token: idToken, method: "POST" });
    expect(res.status).toBe(200);
    const week = new Date(far.startsAt).toISOString().slice(0, 10);
    const calendar = await json(await call(`/api/driver/calendar?week=${week}`, { token: idToken }));
    expect(calendar.blocks.map((b: { id: number }) => b.id)).not.toContain(far.id);
    const blocks = await d.world.blocks();
    expect(blocks.filter((b) => b.driverId === d.driverId)).toHaveLength(1);
  });
});

describe("the calendar", () => {
  it("shows the week's windows, stations and won blocks", async () => {
    const d = await connectedDriver({ zones: ["America/Los_Angeles"] });
    const { idToken } = await signIn(d.user);
    const startsAt = Date.parse("2031-05-14T09:00:00-07:00");
    await recordWonBlock(d, {
      platformOfferId: `cal-${d.user.id}`,
      startsAt,
      endsAt: startsAt + 3 * HOUR,
      payCents: 9000,
      timeZone: "America/Los_Angeles",
      blockId: "BLtest",
      seenAt: startsAt - 86_400_000,
    });
    const body = await json(await call("/api/driver/calendar?week=2031-05-15", { token: idToken }));
    expect(body).toMatchObject({
      week: "2031-05-12",
      stations: [{ id: d.stations[0], timeZone: "America/Los_Angeles" }],
      blocks: [{ startsAt, payCents: 9000 }],
    });
    expect(body.schedule.mon).toEqual([
      { start: "00:00", end: "00:00" },
      { start: "12:00", end: "12:00" },
    ]);
    expect((await json(await call("/api/driver/calendar?week=2031-05-22", { token: idToken }))).blocks).toEqual([]);
    expect((await call("/api/driver/calendar?week=someday", { token: idToken })).status).toBe(400);
  });

  it("another driver's calendar: administrators only (403 for other drivers, whether the number exists or not)", async () => {
    const d = await connectedDriver();
    const snoop = await newDriver();
    const path = `/api/driver/calendar/${encodeURIComponent(d.user.phone)}?week=2031-05-15`;
    expect((await call(path, { token: snoop.token })).status).toBe(403);
    expect((await call(`/api/driver/calendar/%2B12025550199?week=2031-05-15`, { token: snoop.token })).status).toBe(403);
    const admin = await seedAdmin();
    const { idToken } = await signInAdmin(admin);
    const res = await call(path, { token: idToken });
    expect(res.status).toBe(200);
    expect((await json(res)).driver).toMatchObject({ phoneNumber: d.user.phone });
    expect((await call(`/api/driver/calendar/%2B12025550199?week=2031-05-15`, { token: idToken })).status).toBe(404);
    // Their own, by number, is fine.
    const own = await signIn(d.user);
    expect((await call(path, { token: own.idToken })).status).toBe(200);
  });

  it("a reseller sees their client's calendar, not another driver's", async () => {
    const { reseller, client } = await resellerWithClient();
    const stranger = await newDriver();
    const week = "?week=2031-05-15";
    expect((await call(`/api/driver/calendar/${encodeURIComponent(client.phone)}${week}`, { token: reseller.token })).status).toBe(200);
    expect((await call(`/api/driver/calendar/${encodeURIComponent(stranger.user.phone)}${week}`, { token: reseller.token })).status).toBe(403);
    // Nor the client theirs, the other way round.
    expect((await call(`/api/driver/calendar/${encodeURIComponent(reseller.phone)}${week}`, { token: client.token })).status).toBe(403);
  });
});
