/**
 * The capture engine's alarm loop against the fake platform over HTTP (a 300 ms interval in
 * tests): each offer won, disliked (with its reasons) or gone, recorded once; the best pay per
 * hour first, never two overlapping blocks, the daily cap; the driver texted in their language.
 */
import { env } from "cloudflare:test";
import { and, eq, gt } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { driverFilters, outbox, users } from "../db/schema";
import { connectedDriver } from "../test/connected-driver";
import { engineStarter, HOUR, recordsOf, sleep, soon, waitForRecords, wonBlocksInD1 } from "../test/engine-fixtures";
import { db, lastOutboxId, nextSms } from "../test/fixtures";
import { captureSessionOf } from "./capture";

const start = engineStarter();

describe("the alarm loop", () => {
  it("wins a matching offer, dislikes one with its reasons, records each once and texts the driver", async () => {
    const d = await connectedDriver({ filters: { minPayCents: 5000 } });
    const before = await lastOutboxId();
    const [good, poor] = await d.world.offers([
      { serviceAreaId: d.stations[0]!, startsAt: soon(3), endsAt: soon(6), payCents: 7200 },
      { serviceAreaId: d.stations[0]!, startsAt: soon(8), endsAt: soon(10), payCents: 4000 },
    ]);
    expect((await start(d.user.id)).state).toBe("searching");
    const rows = await waitForRecords(d.user.id, 2);
    // Won on the accept's bare 200: the block is the offer's; its id is not known yet.
    expect(rows.find((r) => r.platformOfferId === good)).toMatchObject({ status: "won", payCents: 7200, reasons: [] });
    expect(rows.find((r) => r.platformOfferId === poor)).toMatchObject({ status: "disliked", reasons: ["pay"] });
    // Several more polls: nothing is recorded twice, and the next read of the schedule gives the block its assignment's id.
    await sleep(1000);
    const later = await recordsOf(d.user.id);
    expect(later).toHaveLength(2);
    const [assignment] = (await d.world.blocks()).filter((b) => b.offerId === good);
    expect(later.find((r) => r.platformOfferId === good)?.blockId).toBe(assignment!.blockId);
    const sms = await nextSms(d.user.phone, before);
    expect(sms.body).toMatch(/^Blockpilot: you won a block at Test .* \$72\.00/);
    expect((await db.select().from(users).where(eq(users.id, d.user.id)).get())?.status).toBe("start");
    expect((await d.world.stats()).doubleAccepts).toBe(0);
  });

  it("an offer listed until taken is judged once, and again only after the driver's filters change", async () => {
    const d = await connectedDriver({ filters: { minPayCents: 9000 } });
    const [id] = await d.world.offers([{ serviceAreaId: d.stations[0]!, startsAt: soon(4), endsAt: soon(6), payCents: 7000 }]);
    await start(d.user.id);
    const [first] = await waitForRecords(d.user.id, 1);
    expect(first).toMatchObject({ platformOfferId: id, status: "disliked", reasons: ["pay"] });
    // Still listed poll after poll: not judged again, not recorded twice, never asked for.
    await sleep(900);
    expect(await recordsOf(d.user.id)).toEqual([first]);
    expect((await d.world.calls(d.customerId))["POST /AcceptOffer"]).toBeUndefined();
    // The driver lowers the minimum: judged again, and taken.
    await db.update(driverFilters).set({ minPayCents: 5000 }).where(eq(driverFilters.userId, d.user.id));
    await captureSessionOf(env, d.user.id).reload(d.user.id);
    await vi.waitFor(async () => expect((await recordsOf(d.user.id))[0]).toMatchObject({ platformOfferId: id, status: "won", reasons: [] }), {
      timeout: 4000,
      interval: 100,
    });
    expect(await recordsOf(d.user.id)).toHaveLength(1);
    expect((await captureSessionOf(env, d.user.id).offersPage(d.user.id, { page: 1, pageSize: 10 })).counts).toEqual({ won: 1, disliked: 0, gone: 0 });
  });

  it("texts in Spanish, and not at all to a driver who opted out", async () => {
    const es = await connectedDriver({ user: { language: "es" } });
    const quiet = await connectedDriver({ user: { smsOptOut: true } });
    const before = await lastOutboxId();
    await es.world.offers([
      { serviceAreaId: es.stations[0]!, startsAt: soon(3), endsAt: soon(5), payCents: 6000 },
      { serviceAreaId: quiet.stations[0]!, startsAt: soon(3), endsAt: soon(5), payCents: 6000 },
    ]);
    await start(es.user.id);
    await start(quiet.user.id);
    await waitForRecords(es.user.id, 1);
    await waitForRecords(quiet.user.id, 1);
    // The text goes out by the queue's notify job (notifications/deliver.ts).
    expect((await nextSms(es.user.phone, before)).body).toMatch(/^Blockpilot: ganaste un bloque/);
    const sent = await db.select().from(outbox).where(gt(outbox.id, before)).all();
    expect(sent.some((m) => m.to === quiet.user.phone)).toBe(false);
  });

  it("a driver who opts out while the engine runs gets no text for a block won after", async () => {
    const d = await connectedDriver();
    await start(d.user.id);
    await sleep(400);
    // The engine read the profile when it started; the opt-out comes after.
    await db.update(users).set({ smsOptOut: true }).where(eq(users.id, d.user.id));
    const before = await lastOutboxId();
    await d.world.offers([{ serviceAreaId: d.stations[0]!, startsAt: soon(3), endsAt: soon(5), payCents: 6000 }]);
    await waitForRecords(d.user.id, 1);
    await sleep(300);
    const sent = await db
      .select()
      .from(outbox)
      .where(and(gt(outbox.id, before), eq(outbox.to, d.user.phone)))
      .all();
    expect(sent).toEqual([]);
  });

  it("takes the best pay per hour first and never two overlapping blocks", async () => {
    const d = await connectedDriver();
    const base = soon(4);
    const [cheap, rich, later] = await d.world.offers([
      { serviceAreaId: d.stations[0]!, startsAt: base, endsAt: base + 4 * HOUR, payCents: 8000 }, // $20/h
      { serviceAreaId: d.stations[0]!, startsAt: base + HOUR, endsAt: base + 3 * HOUR, payCents: 6000 }, // $30/h, overlaps
      { serviceAreaId: d.stations[0]!, startsAt: base + 5 * HOUR, endsAt: base + 7 * HOUR, payCents: 4000 }, // $20/h, after both
    ]);
    await start(d.user.id);
    const rows = await waitForRecords(d.user.id, 3);
    const byId = new Map(rows.map((r) => [r.platformOfferId, r]));
    expect(byId.get(rich!)?.status).toBe("won");
    expect(byId.get(cheap!)).toMatchObject({ status: "disliked", reasons: ["overlap"] });
    expect(byId.get(later!)?.status).toBe("won");
    expect((await d.world.stats()).overlaps).toBe(0);
  });

  it("remembers a block won in an earlier poll: a later overlapping offer is not taken", async () => {
    const d = await connectedDriver();
    const base = soon(6);
    const [first] = await d.world.offers([{ serviceAreaId: d.stations[0]!, startsAt: base, endsAt: base + 3 * HOUR, payCents: 6000 }]);
    await start(d.user.id);
    await waitForRecords(d.user.id, 1);
    const [later] = await d.world.offers([{ serviceAreaId: d.stations[0]!, startsAt: base + HOUR, endsAt: base + 2 * HOUR, payCents: 9000 }]);
    const rows = await waitForRecords(d.user.id, 2);
    expect(rows.find((r) => r.platformOfferId === first)?.status).toBe("won");
    expect(rows.find((r) => r.platformOfferId === later)).toMatchObject({ status: "disliked", reasons: ["overlap"] });
    expect((await d.world.stats()).overlaps).toBe(0);
  });

  it("counts blocks already on the platform's schedule (won elsewhere) against overlaps", async () => {
    const d = await connectedDriver();
    const base = soon(5);
    const [manual] = await d.world.offers([{ serviceAreaId: d.stations[0]!, startsAt: base, endsAt: base + 2 * HOUR, payCents: 5000 }]);
    // The driver took this one in the platform's own app.
    const { flexPlatform } = await import("./http-platform");
    const { platformConnection } = await import("../test/connected-driver");
    const { tokens } = await platformConnection("flex", d.email);
    const offer = { id: manual!, stationId: d.stations[0]!, startsAt: base, endsAt: base + 2 * HOUR, payCents: 5000, expiresAt: base, hidden: false };
    expect(await flexPlatform(env).accept(tokens.accessToken, offer)).toMatchObject({ kind: "won" });
    const [clash] = await d.world.offers([{ serviceAreaId: d.stations[0]!, startsAt: base + HOUR, endsAt: base + 3 * HOUR, payCents: 9000 }]);
    await start(d.user.id);
    const [row] = await waitForRecords(d.user.id, 1);
    expect(row).toMatchObject({ platformOfferId: clash, status: "disliked", reasons: ["overlap"] });
  });

  it("honours the daily cap on the station's local day", async () => {
    const d = await connectedDriver({ zones: ["America/Los_Angeles"], filters: { dailyCapMinutes: 300 } });
    // Two 3-hour blocks on the same Los Angeles day, far enough apart not to overlap.
    const day = Date.parse("2031-03-12T08:00:00-07:00");
    const [a, b] = await d.world.offers([
      { serviceAreaId: d.stations[0]!, startsAt: day, endsAt: day + 3 * HOUR, payCents: 9000 },
      { serviceAreaId: d.stations[0]!, startsAt: day + 6 * HOUR, endsAt: day + 9 * HOUR, payCents: 6000 },
    ]);
    await start(d.user.id);
    const rows = await waitForRecords(d.user.id, 2);
    expect(rows.find((r) => r.platformOfferId === a)?.status).toBe("won");
    expect(rows.find((r) => r.platformOfferId === b)).toMatchObject({ status: "disliked", reasons: ["daily_cap"] });
  });

  it("records an offer someone else took first as gone", async () => {
    const d = await connectedDriver();
    const [id] = await d.world.offers([{ serviceAreaId: d.stations[0]!, startsAt: soon(3), endsAt: soon(5), payCents: 6000, competitorFirst: true }]);
    await start(d.user.id);
    const [row] = await waitForRecords(d.user.id, 1);
    expect(row).toMatchObject({ platformOfferId: id, status: "gone", blockId: null });
  });

  it("ignores offers the driver hid in the platform's app", async () => {
    const d = await connectedDriver();
    await d.world.offers([{ serviceAreaId: d.stations[0]!, startsAt: soon(3), endsAt: soon(5), payCents: 6000, hidden: true }]);
    const [shown] = await d.world.offers([{ serviceAreaId: d.stations[0]!, startsAt: soon(7), endsAt: soon(9), payCents: 6000 }]);
    await start(d.user.id);
    await waitForRecords(d.user.id, 1);
    await sleep(700);
    expect((await recordsOf(d.user.id)).map((r) => r.platformOfferId)).toEqual([shown]);
  });

  it("a Spark driver searches delivery areas the same way", async () => {
    const d = await connectedDriver({ app: "spark", zones: ["America/Chicago"] });
    const [id] = await d.world.offers([{ app: "spark", serviceAreaId: d.stations[0]!, startsAt: soon(3), endsAt: soon(5), payCents: 5000 }]);
    await start(d.user.id);
    const [row] = await waitForRecords(d.user.id, 1);
    expect(row).toMatchObject({ platformOfferId: id, status: "won", timeZone: "America/Chicago" });
    // The won block's copy in D1 names the app.
    await vi.waitFor(async () => expect(await wonBlocksInD1(d.user.id)).toMatchObject([{ platformOfferId: id, app: "spark" }]));
  });
});
