/**
 * The engine under the platform's limits, against the fake platform over HTTP (docs/engine.md,
 * "Limits of the platform"): "Rate exceeded" stops every capacity call until the lockout's end
 * (short in tests: CAPTURE_LOCKOUT_MS), shown as `rate_limited` with until when, then searching
 * resumes; a 307 on an accept holds accepting until the driver says the captcha is solved (one try);
 * a 420 holds accepting, or the whole search, until an admin clears it, and never loops; a forfeit
 * asked during a lockout waits for its end.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { auditLog, driverNotifications, outbox } from "../db/schema";
import { connectedDriver } from "../test/connected-driver";
import { engineStarter, recordsOf, sleep, soon, waitForRecords } from "../test/engine-fixtures";
import { call, db, json, seedAdmin, signIn, signInAdmin } from "../test/fixtures";
import { captureSessionOf } from "./capture";

const start = engineStarter();
const LOCKOUT_MS = Number(env.CAPTURE_LOCKOUT_MS);

/** A driver signed in to the API, their engine on, and an offer at their first station. */
async function searching(options: Parameters<typeof connectedDriver>[0] = {}) {
  const d = await connectedDriver(options);
  const { idToken } = await signIn(d.user);
  const [offerId] = await d.world.offers([{ serviceAreaId: d.stations[0]!, startsAt: soon(3), endsAt: soon(5), payCents: 6000 }]);
  await start(d.user.id);
  const engine = async () => (await json(await call("/api/driver/engine", { token: idToken }))).engine;
  const accepts = async () => ((await (await fetch(`${env.FAKE_PLATFORM_URL}/__control/accepts`)).json()) as { accepts: { offerId: string }[] }).accepts;
  const acceptsOf = async () => (await accepts()).filter((a) => a.offerId === offerId).length;
  /** The engine's status once it is in `state`. */
  const engineIn = (state: string, timeout: number) =>
    vi.waitFor(
      async () => {
        const status = await engine();
        if (status.state !== state) throw new Error(status.state);
        return status;
      },
      { timeout, interval: 20 },
    );
  return { d, idToken, offerId: offerId!, engine, engineIn, acceptsOf, calls: () => d.world.calls(d.customerId) };
}

const total = (calls: Record<string, number>) => Object.values(calls).reduce((a, b) => a + b, 0);

/** The driver's "search stopped" notifications (notifications/notify.ts), once each has been accepted. */
const toldOf = (userId: number, count: number) =>
  vi.waitFor(
    async () => {
      const rows = await db
        .select()
        .from(driverNotifications)
        .where(and(eq(driverNotifications.userId, userId), eq(driverNotifications.event, "searchStopped")))
        .orderBy(driverNotifications.id);
      if (rows.length < count) throw new Error(`${rows.length} notifications`);
      return rows;
    },
    { timeout: 8000, interval: 20 },
  );

async function adminToken() {
  const admin = await seedAdmin();
  return { admin, token: (await signInAdmin(admin)).idToken };
}

describe('"Rate exceeded"', () => {
  it("stops every capacity call until the lockout's end, says so with until when, then searches again more slowly", async () => {
    const t = await searching({ faults: [{ kind: "429", on: "offers" }] });
    const limited = await t.engineIn("rate_limited", 8000);
    expect(limited).toMatchObject({ state: "rate_limited", stations: 1, forfeitsWaiting: 0, acceptHold: null, timeZone: "America/New_York" });
    // The first lockout's wait (and its margin of a thirtieth), from the refused call.
    expect(limited.until - limited.since).toBeGreaterThanOrEqual(LOCKOUT_MS);
    expect(limited.until - limited.since).toBeLessThan(LOCKOUT_MS + 200);
    // The driver is told once, keyed by when the lockout began (an SMS: they have no device).
    const [told] = await toldOf(t.d.user.id, 1);
    expect(told).toMatchObject({ channel: "sms", key: `searchStopped:${t.d.user.id}:rate_limited:${limited.since}:sms` });
    const during = await t.calls();
    // A route's capacity call goes through the same gate: refused at once with the lockout's wait, not sent.
    const stations = await call("/api/driver/stations", { token: t.idToken });
    expect(stations.status).toBe(429);
    expect(await json(stations)).toMatchObject({ error: { code: "rate_limited", details: { reason: "rate_limited" } } });
    expect(Number(stations.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Up to 300 ms before the lockout's end: a loaded run's timers fire late.
    await sleep(Math.max(0, limited.until - Date.now() - 300));
    // Nothing reached the platform during the lockout, and no offer was judged.
    expect(await t.calls()).toEqual(during);
    expect(await recordsOf(t.d.user.id)).toHaveLength(0);
    const [row] = await waitForRecords(t.d.user.id, 1, 4000);
    expect(row).toMatchObject({ platformOfferId: t.offerId, status: "won" });
    expect((await t.engine()).state).toBe("searching");
    expect(total(await t.calls())).toBeGreaterThan(total(during));
    // The interval widened after the limit (300 ms in tests, 1.5 times wider) and stays so.
    const pacing = await runInDurableObject(captureSessionOf(env, t.d.user.id), (_object, state) => state.storage.kv.get("pacing"));
    expect(pacing).toMatchObject({ intervalMs: 450, learnedFloorMs: 375, lockedUntil: 0, lockouts: 1 });
    // What the driver was told (the row keeps its state once sent, not the text): the text itself.
    const limitedText = "Flex is limiting your account, so the search is paused for about 1 min.";
    await vi.waitFor(
      async () => expect((await db.select().from(outbox).where(eq(outbox.to, t.d.user.phone))).filter((m) => m.body.includes(limitedText))).toHaveLength(1),
      { timeout: 5000, interval: 50 },
    );
  });

  // Tried up to three times: under a whole run's load on two cores the engine's polls can come too
  // slowly to fill the model's window within the wait (seen once in five clean-clone runs); what
  // it asserts holds on every try.
  it("against the fake's burst model: locked out, no call until the engine's wait is over", { retry: 2 }, async () => {
    const t = await searching({ limitModel: "burst", lockoutMs: 500 });
    const status = await t.engineIn("rate_limited", 8000);
    const during = await t.calls();
    // Read while the engine's wait still runs (its end leaves 300 ms, for a loaded run's late
    // timers): once it is over the engine calls again, and the model's window may still be full.
    await sleep(Math.max(0, status.until - Date.now() - 300));
    const [after, world] = await Promise.all([t.calls(), t.d.world.stats()]);
    expect(after).toEqual(during);
    // Answered calls before the limit: at most the model's 8 in its window.
    const stats = world.drivers[t.d.driverId]!;
    expect(stats.overLimit).toBe(1);
    expect(stats.lockouts).toBe(1);
  });
});

describe("a captcha (307) on an accept", () => {
  it("holds accepting until the driver says it is solved; then one try, and a 307 again holds again", async () => {
    const t = await searching({
      faults: [
        { kind: "307", on: "accept" },
        { kind: "307", on: "accept" },
      ],
    });
    const held = await vi.waitFor(
      async () => {
        const engine = await t.engine();
        if (!engine.acceptHold) throw new Error("not held");
        return engine;
      },
      { timeout: 8000, interval: 20 },
    );
    // Searching goes on; accepting waits.
    expect(held).toMatchObject({ state: "searching", acceptHold: { reason: "captcha", since: expect.any(Number) } });
    await sleep(1000);
    expect(await t.acceptsOf()).toBe(1);
    const solved = await call("/api/driver/engine/captcha-solved", { token: t.idToken, method: "POST" });
    expect(solved.status).toBe(200);
    // The one try meets a 307 again: held again, one accept more, no loop.
    await vi.waitFor(async () => expect(await t.acceptsOf()).toBe(2), { timeout: 8000, interval: 20 });
    await sleep(1000);
    expect(await t.acceptsOf()).toBe(2);
    expect((await t.engine()).acceptHold).toMatchObject({ reason: "captcha" });
    expect((await call("/api/driver/engine/captcha-solved", { token: t.idToken, method: "POST" })).status).toBe(200);
    const [row] = await waitForRecords(t.d.user.id, 1, 4000);
    expect(row).toMatchObject({ platformOfferId: t.offerId, status: "won" });
    expect((await t.engine()).acceptHold).toBeNull();
    // Told of each captcha once: the first, and the one the try after "I solved it" met.
    const told = await toldOf(t.d.user.id, 2);
    expect(told.map((r) => r.key.split(":")[2])).toEqual(["captcha", "captcha"]);
    expect(told[0]!.key).not.toBe(told[1]!.key);
    const none = await call("/api/driver/engine/captcha-solved", { token: t.idToken, method: "POST" });
    expect(none.status).toBe(409);
    expect(await json(none)).toMatchObject({ error: { code: "conflict", details: { reason: "no_captcha" } } });
  });
});

describe("a request signature asked for (420)", () => {
  // Tried up to three times, for the same reason as the burst model's test (seen once in five runs).
  it("on an accept: holds accepting, never loops; an admin clears it (audited) and the engine tries once", { retry: 2 }, async () => {
    const t = await searching({ faults: [{ kind: "420", on: "accept" }] });
    await vi.waitFor(async () => expect((await t.engine()).acceptHold).toMatchObject({ reason: "signature" }), { timeout: 8000, interval: 20 });
    await sleep(1200);
    expect(await t.acceptsOf()).toBe(1);
    expect(await recordsOf(t.d.user.id)).toHaveLength(0);
    const { admin, token } = await adminToken();
    const cleared = await call(`/api/admin/users/${t.d.user.id}/engine/clear-hold`, { token, method: "POST" });
    expect(cleared.status).toBe(200);
    expect((await json(cleared)).engine).toMatchObject({ state: "searching" });
    const [row] = await waitForRecords(t.d.user.id, 1, 4000);
    expect(row).toMatchObject({ platformOfferId: t.offerId, status: "won" });
    const audit = (await db.select().from(auditLog).all()).filter((a) => a.actorId === admin.id && a.action.startsWith("admin."));
    expect(audit).toMatchObject([{ action: "admin.engine_hold_cleared", target: `user:${t.d.user.id}` }]);
    const again = await call(`/api/admin/users/${t.d.user.id}/engine/clear-hold`, { token, method: "POST" });
    expect(again.status).toBe(409);
    expect(await json(again)).toMatchObject({ error: { details: { reason: "no_hold" } } });
  });

  it("on the offers call: the whole search stops (signature_required, no signer configured), never loops, until an admin clears it", async () => {
    const t = await searching({ faults: [{ kind: "420", on: "offers" }] });
    const held = await t.engineIn("signature_required", 8000);
    expect(held).toMatchObject({ state: "signature_required", stations: 1, since: expect.any(Number), signerConfigured: false });
    const during = await t.calls();
    await sleep(1200);
    expect(await t.calls()).toEqual(during);
    expect(during["POST /GetOffersForProviderPost"]).toBe(1);
    expect(await toldOf(t.d.user.id, 1)).toMatchObject([{ key: `searchStopped:${t.d.user.id}:signature:${held.since}:sms` }]);
    const { token } = await adminToken();
    expect((await call(`/api/admin/users/${t.d.user.id}/engine/clear-hold`, { token, method: "POST" })).status).toBe(200);
    const [row] = await waitForRecords(t.d.user.id, 1, 4000);
    expect(row).toMatchObject({ platformOfferId: t.offerId, status: "won" });
    expect((await json(await call(`/api/admin/users/${t.d.user.id}/dashboard/engine`, { token }))).engine.state).toBe("searching");
  });
});

describe("a forfeit asked during a lockout", () => {
  it("waits for the lockout's end (202, shown on the rows and the engine), then is sent before searching", async () => {
    const t = await searching();
    const [won] = await waitForRecords(t.d.user.id, 1, 4000);
    // The block's platform id comes from the schedule, read on the poll after the win.
    await vi.waitFor(async () => expect((await captureSessionOf(env, t.d.user.id).offer(t.d.user.id, won!.id))?.blockId).toBeTruthy(), {
      timeout: 3000,
      interval: 20,
    });
    await t.d.world.control("limits", { account: t.d.customerId, faults: [{ kind: "429", on: "offers" }] });
    const limited = await t.engineIn("rate_limited", 8000);
    const asked = await call(`/api/driver/offers/${won!.id}/forfeit`, { token: t.idToken, method: "POST" });
    expect(asked.status).toBe(202);
    expect(await json(asked)).toEqual({ id: won!.id, queued: true, sendsAt: limited.until });
    // Asked again: still waiting, same answer.
    const twice = await call(`/api/driver/offers/${won!.id}/forfeit`, { token: t.idToken, method: "POST" });
    expect(twice.status).toBe(202);
    expect((await t.engine()).forfeitsWaiting).toBe(1);
    const rows = (await json(await call("/api/driver/offers?status=won", { token: t.idToken }))).rows;
    expect(rows).toMatchObject([{ id: won!.id, forfeitedAt: null, forfeitQueuedAt: expect.any(Number) }]);
    const week = new Date(won!.startsAt).toISOString().slice(0, 10);
    const calendar = await json(await call(`/api/driver/calendar?week=${week}`, { token: t.idToken }));
    expect(calendar.blocks).toMatchObject([{ id: won!.id, forfeitQueuedAt: expect.any(Number) }]);
    expect((await t.calls())["DELETE /schedule/blocks/:id"]).toBeUndefined();
    await vi.waitFor(async () => expect((await t.calls())["DELETE /schedule/blocks/:id"]).toBe(1), { timeout: 4000, interval: 20 });
    expect(Date.now()).toBeGreaterThanOrEqual(limited.until);
    await vi.waitFor(async () => {
      const row = (await json(await call("/api/driver/offers?status=won", { token: t.idToken }))).rows[0];
      expect(row).toMatchObject({ forfeitedAt: expect.any(Number), forfeitQueuedAt: null });
    });
    expect((await t.engine()).state).toBe("searching");
    expect((await t.d.world.blocks()).filter((b) => b.driverId === t.d.driverId)).toHaveLength(0);
  });
});
