/** The limits on what a driver's requests make Blockpilot ask the platform, each refused before the platform is asked. */
import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { RATE_LIMITS } from "../auth/rate-limit";
import { startRefreshFamily } from "../auth/refresh-tokens";
import { idTokenFor } from "../auth/sign-in-flow";
import { platformAccounts, users } from "../db/schema";
import { connectedDriver, defaultWorld, recordWonBlock } from "../test/connected-driver";
import { connectThroughPage } from "../test/fake-platform-world";
import { call, db, json, seedUser, signIn, uniqueAddress } from "../test/fixtures";
import { HOUR, newDriver, platformEmail, userRow } from "../test/spark-driver";

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
    const email = platformEmail("unconfirmed");
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
