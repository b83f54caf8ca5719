/**
 * The capture engine against the fake platform over HTTP: its real alarm loop (a 300 ms interval in
 * tests), restarts (the object evicted between polls), every stop condition, and the guarantees:
 * each offer recorded once, never accepted twice, no overlapping blocks.
 */
import { abortAllDurableObjects, env } from "cloudflare:test";
import { and, desc, eq, gt } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { driverFilters, offers, outbox, platformAccounts, users } from "../db/schema";
import { db, lastOutboxId } from "../test/fixtures";
import { captureSessionOf, resumeCapture } from "./capture";
import { connectedDriver } from "./test-driver";

const HOUR = 3_600_000;
const started: number[] = [];

afterEach(async () => {
  // No engine keeps polling into the next test.
  for (const id of started.splice(0)) await captureSessionOf(env, id).stop(id);
});

async function start(userId: number) {
  started.push(userId);
  return captureSessionOf(env, userId).start(userId);
}

const recordsOf = (userId: number) => db.select().from(offers).where(eq(offers.userId, userId)).orderBy(offers.id).all();

async function waitForRecords(userId: number, count: number, timeout = 5000) {
  return vi.waitFor(
    async () => {
      const rows = await recordsOf(userId);
      if (rows.length < count) throw new Error(`${rows.length} of ${count} records`);
      return rows;
    },
    { timeout, interval: 50 },
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const soon = (hours: number) => Math.ceil((Date.now() + hours * HOUR) / 60_000) * 60_000;

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
    expect(rows.find((r) => r.platformOfferId === good)).toMatchObject({ status: "won", payCents: 7200, reasons: null, blockId: expect.stringMatching(/^BL/) });
    expect(rows.find((r) => r.platformOfferId === poor)).toMatchObject({ status: "disliked", reasons: ["pay"] });
    // Several more polls: nothing is recorded twice.
    await sleep(1000);
    expect(await recordsOf(d.user.id)).toHaveLength(2);
    const sms = await vi.waitFor(async () => {
      const row = await db
        .select()
        .from(outbox)
        .where(and(eq(outbox.to, d.user.phone), gt(outbox.id, before)))
        .get();
      if (!row) throw new Error("no SMS yet");
      return row;
    });
    expect(sms.body).toMatch(/^Blockpilot: you won a block at Test .* \$72\.00/);
    expect((await db.select().from(users).where(eq(users.id, d.user.id)).get())?.status).toBe("start");
    expect((await d.world.stats()).doubleAccepts).toBe(0);
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
    await sleep(300);
    const sent = await db.select().from(outbox).where(gt(outbox.id, before)).all();
    expect(sent.find((m) => m.to === es.user.phone)?.body).toMatch(/^Blockpilot: ganaste un bloque/);
    expect(sent.some((m) => m.to === quiet.user.phone)).toBe(false);
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
    const { platformFor } = await import("./http-platform");
    const step = await platformFor(env, "flex").signIn(d.email, "pw");
    if (step.kind !== "tokens") throw new Error("expected tokens");
    await platformFor(env, "flex").accept(step.tokens.accessToken, manual!);
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
    expect(row).toMatchObject({ platformOfferId: id, app: "spark", status: "won", timeZone: "America/Chicago" });
  });
});

describe("failures, restarts and the platform's limits", () => {
  it("an accept whose answer is lost is resolved from the platform's schedule, not accepted again, across a restart", async () => {
    const d = await connectedDriver({ faults: [{ kind: "lost", on: "accept" }] });
    const [id] = await d.world.offers([{ serviceAreaId: d.stations[0]!, startsAt: soon(3), endsAt: soon(5), payCents: 6000 }]);
    await start(d.user.id);
    // The accept hangs until the platform time-out (1 s in tests); then the object restarts.
    await sleep(1300);
    await abortAllDurableObjects();
    const [row] = await waitForRecords(d.user.id, 1, 6000);
    expect(row).toMatchObject({ platformOfferId: id, status: "won", blockId: expect.stringMatching(/^BL/) });
    const accepts = ((await (await fetch(`${env.FAKE_PLATFORM_URL}/__control/accepts`)).json()) as { accepts: { offerId: string }[] }).accepts;
    expect(accepts.filter((a) => a.offerId === id)).toHaveLength(1);
    expect((await d.world.stats()).doubleAccepts).toBe(0);
  });

  it("takes nothing that overlaps an accept whose answer was lost until that accept is settled", async () => {
    const d = await connectedDriver({ faults: [{ kind: "lost", on: "accept" }] });
    const base = soon(3);
    const [rich, cheap] = await d.world.offers([
      { serviceAreaId: d.stations[0]!, startsAt: base, endsAt: base + 2 * HOUR, payCents: 9000 },
      { serviceAreaId: d.stations[0]!, startsAt: base + HOUR, endsAt: base + 3 * HOUR, payCents: 4000 },
    ]);
    // The rich one's accept is lost (the platform gives us the block, the answer never comes); the
    // next poll lists only the cheap one, which must wait for the schedule to say the rich one is ours.
    await start(d.user.id);
    const rows = await waitForRecords(d.user.id, 2, 8000);
    expect(rows.find((r) => r.platformOfferId === rich)).toMatchObject({ status: "won" });
    expect(rows.find((r) => r.platformOfferId === cheap)).toMatchObject({ status: "disliked", reasons: ["overlap"] });
    expect(await d.world.stats()).toMatchObject({ overlaps: 0, doubleAccepts: 0 });
  });

  it("an accept that failed before the platform took it is tried again while the offer is open", async () => {
    const d = await connectedDriver({ faults: [{ kind: "5xx", on: "accept" }] });
    const [id] = await d.world.offers([{ serviceAreaId: d.stations[0]!, startsAt: soon(3), endsAt: soon(5), payCents: 6000 }]);
    await start(d.user.id);
    const [row] = await waitForRecords(d.user.id, 1, 6000);
    expect(row).toMatchObject({ platformOfferId: id, status: "won" });
    expect(await recordsOf(d.user.id)).toHaveLength(1);
  });

  it("remembers decided offers across a restart: nothing is judged or recorded twice", async () => {
    const d = await connectedDriver({ filters: { minPayCents: 9000 } });
    await d.world.offers([{ serviceAreaId: d.stations[0]!, startsAt: soon(3), endsAt: soon(5), payCents: 6000, expiresInMs: 120_000 }]);
    const stub = captureSessionOf(env, d.user.id);
    await start(d.user.id);
    await waitForRecords(d.user.id, 1);
    // A record deleted behind the engine's back is not written again: the object remembers it decided.
    await db.delete(offers).where(eq(offers.userId, d.user.id));
    await abortAllDurableObjects();
    await sleep(1000);
    expect(await recordsOf(d.user.id)).toHaveLength(0);
    expect((await stub.status(d.user.id)).state).toBe("searching");
  });

  it("backs off as the platform asks on a 429 and never polls over its limit again", async () => {
    // One poll per 2 s allowed; the engine asks every 300 ms until told to wait.
    const d = await connectedDriver({ offersRate: 0.5, offersBurst: 1 });
    await start(d.user.id);
    await sleep(2600);
    const mine = (await d.world.stats()).drivers[d.driverId]!;
    expect(mine.overLimit).toBe(1);
    // The 429 said "Retry-After: 2": at most the first poll, the refused one and one after the wait.
    expect(mine.polls).toBeLessThanOrEqual(3);
    const status = await captureSessionOf(env, d.user.id).status(d.user.id);
    expect(status.state).toBe("searching");
  });

  it("backs off on 5xx and time-outs, then searches again", async () => {
    const d = await connectedDriver({
      faults: [
        { kind: "5xx", on: "offers" },
        { kind: "timeout", on: "offers" },
      ],
    });
    const [id] = await d.world.offers([{ serviceAreaId: d.stations[0]!, startsAt: soon(3), endsAt: soon(5), payCents: 6000 }]);
    await start(d.user.id);
    const [row] = await waitForRecords(d.user.id, 1, 8000);
    expect(row).toMatchObject({ platformOfferId: id, status: "won" });
  });
});

describe("when it runs and when it stops", () => {
  it("pauses outside the schedule and does not poll", async () => {
    const d = await connectedDriver({ filters: { schedule: {} } });
    // A schedule with no window at all: set after start is refused, so write it directly.
    await db.update(driverFilters).set({ schedule: {} }).where(eq(driverFilters.userId, d.user.id));
    const status = await start(d.user.id);
    expect(status).toMatchObject({ state: "paused", opensAt: null });
    await sleep(700);
    expect((await d.world.stats()).drivers[d.driverId]).toBeUndefined();
  });

  it("says until when it searches, read in the station's zone", async () => {
    const wholeDay = [{ start: "00:00", end: "00:00" }];
    const schedule = { mon: wholeDay, tue: wholeDay, wed: wholeDay, thu: wholeDay, fri: wholeDay, sat: wholeDay, sun: wholeDay };
    const d = await connectedDriver({ zones: ["America/Denver"], filters: { schedule } });
    const status = await start(d.user.id);
    expect(status.state).toBe("searching");
    if (status.state !== "searching") return;
    // A whole-day window ends at the next local midnight in Denver.
    const midnight = new Intl.DateTimeFormat("en-US", { timeZone: "America/Denver", hour: "numeric", minute: "numeric", hourCycle: "h23" }).format(
      status.until,
    );
    expect(midnight).toBe("00:00");
    expect(status.stations).toBe(1);
  });

  it("stops by itself when service expires, and a payment's resume starts it again", async () => {
    const d = await connectedDriver();
    // Service ends two seconds after the start, set just before it: a slow setup on a busy machine
    // (a clean-clone run took over 1.2 s) must not use the service up before the engine starts.
    await db
      .update(users)
      .set({ expirationAt: Date.now() + 2000 })
      .where(eq(users.id, d.user.id));
    expect((await start(d.user.id)).state).toBe("searching");
    await vi.waitFor(
      async () => {
        const s = await captureSessionOf(env, d.user.id).status(d.user.id);
        if (s.state !== "stopped") throw new Error(s.state);
        expect(s.reason).toBe("expired");
      },
      { timeout: 10_000, interval: 100 },
    );
    expect((await db.select().from(users).where(eq(users.id, d.user.id)).get())?.status).toBe("stop");
    // Paid again:
    await db
      .update(users)
      .set({ expirationAt: Date.now() + 86_400_000 })
      .where(eq(users.id, d.user.id));
    await resumeCapture(env, d.user.id);
    expect((await captureSessionOf(env, d.user.id).status(d.user.id)).state).toBe("searching");
    expect((await db.select().from(users).where(eq(users.id, d.user.id)).get())?.status).toBe("start");
  });

  it("resume does not start a system the driver turned off", async () => {
    const d = await connectedDriver();
    await start(d.user.id);
    await captureSessionOf(env, d.user.id).stop(d.user.id);
    await resumeCapture(env, d.user.id);
    expect(await captureSessionOf(env, d.user.id).status(d.user.id)).toEqual({ state: "stopped", reason: "driver" });
  });

  it("refuses to start without paid service, a connection or filters", async () => {
    const unpaid = await connectedDriver({ user: { expirationAt: Date.now() - 1000 } });
    expect(await start(unpaid.user.id)).toEqual({ state: "stopped", reason: "expired" });
    const unconnected = await connectedDriver({ connect: false });
    expect(await start(unconnected.user.id)).toEqual({ state: "stopped", reason: "disconnected" });
    const noFilters = await connectedDriver();
    await db.delete(driverFilters).where(eq(driverFilters.userId, noFilters.user.id));
    expect(await start(noFilters.user.id)).toEqual({ state: "stopped", reason: "setup" });
  });

  it("a refresh the platform refuses disconnects the driver, stops the engine and tells them", async () => {
    const d = await connectedDriver();
    const before = await lastOutboxId();
    await start(d.user.id);
    await sleep(400);
    await d.world.control("revoke", { email: d.email });
    await vi.waitFor(
      async () => {
        const row = await db.select().from(users).where(eq(users.id, d.user.id)).get();
        if (row?.accountConnected) throw new Error("still connected");
        expect(row?.status).toBe("stop");
      },
      { timeout: 4000, interval: 100 },
    );
    const account = await db.select().from(platformAccounts).where(eq(platformAccounts.userId, d.user.id)).get();
    expect(account).toMatchObject({ sealedTokens: null, disconnectReason: "refused" });
    expect(await captureSessionOf(env, d.user.id).status(d.user.id)).toEqual({ state: "stopped", reason: "disconnected" });
    const sms = await vi.waitFor(async () => {
      const row = await db
        .select()
        .from(outbox)
        .where(and(eq(outbox.to, d.user.phone), gt(outbox.id, before)))
        .orderBy(desc(outbox.id))
        .get();
      if (!row) throw new Error("no SMS yet");
      return row;
    });
    expect(sms.body).toMatch(/ended the connection to your account/);
  });

  it("the driver turning it off stops the polls", async () => {
    const d = await connectedDriver();
    await start(d.user.id);
    await sleep(500);
    await captureSessionOf(env, d.user.id).stop(d.user.id);
    const polls = (await d.world.stats()).drivers[d.driverId]!.polls;
    await sleep(800);
    expect((await d.world.stats()).drivers[d.driverId]!.polls).toBe(polls);
    expect((await db.select().from(users).where(eq(users.id, d.user.id)).get())?.status).toBe("stop");
  });

  it("one object serves one driver only", async () => {
    const a = await connectedDriver();
    const b = await connectedDriver();
    await captureSessionOf(env, a.user.id).status(a.user.id);
    let refused: unknown = null;
    try {
      await captureSessionOf(env, a.user.id).status(b.user.id);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(/belongs to user/);
  });
});
