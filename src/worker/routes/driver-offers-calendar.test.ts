/** The driver's offers, won blocks and check-in, and the calendar (theirs, and another driver's). */
import { afterEach, describe, expect, it } from "vitest";
import { resellerWithClient } from "../test/billing-fixtures";
import { connectedDriver, recordWonBlock } from "../test/connected-driver";
import { waitForRecords } from "../test/engine-fixtures";
import { call, json, seedAdmin, signIn, signInAdmin } from "../test/fixtures";
import { HOUR, newDriver, running, stopRunningEngines } from "../test/spark-driver";

afterEach(stopRunningEngines);

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
