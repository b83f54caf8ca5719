/** The driver's routes: connecting a Spark account, stations and filters, the system switch. */
import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { openSecret } from "../auth/secret-box";
import { driverFilters, platformAccounts, platformSignIns } from "../db/schema";
import { connectedDriver, defaultWorld } from "../test/connected-driver";
import { call, db, json, signIn } from "../test/fixtures";
import { newDriver, running, stopRunningEngines, userRow } from "../test/spark-driver";

afterEach(stopRunningEngines);

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
