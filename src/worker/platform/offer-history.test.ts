/**
 * A driver's offer history in its capture engine's own storage: each offer once, the counts a
 * dashboard reads without counting, pages newest first, the blocks held, won blocks copied to D1
 * (and brought up to date there), and retention.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { HistoryOffer } from "../../shared/insights";
import type { Db } from "../db/client";
import { offers } from "../db/schema";
import { RETENTION } from "../retention";
import { db, seedUser } from "../test/fixtures";
import type { OfferRecord } from "./driver-store";
import { OfferHistory } from "./offer-history";

const NOW = Date.parse("2031-03-12T12:00:00Z");
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let objects = 0;
/** Runs `body` with a history in a fresh object's storage. */
async function withHistory<T>(body: (history: OfferHistory, state: DurableObjectState) => T | Promise<T>): Promise<T> {
  const stub = env.CAPTURE_SESSION.get(env.CAPTURE_SESSION.idFromName(`history-test:${++objects}:${Math.random()}`));
  return runInDurableObject(stub, (_instance, state) => body(new OfferHistory(state.storage.sql, state.storage.kv), state));
}

function record(id: string, over: Partial<OfferRecord> = {}): OfferRecord {
  return {
    userId: 1,
    app: "flex",
    platformOfferId: id,
    stationId: "S1",
    stationName: "Station 1",
    timeZone: "America/Denver",
    status: "disliked",
    reasons: ["pay"],
    payCents: 6000,
    startsAt: NOW + HOUR,
    endsAt: NOW + 3 * HOUR,
    blockId: null,
    seenAt: NOW,
    ...over,
  };
}

describe("OfferHistory", () => {
  it("records each offer once and counts per status without reading the table", async () => {
    await withHistory((h) => {
      expect(h.record(record("a"))).toBe(true);
      expect(h.record(record("a", { status: "won" }))).toBe(false);
      h.record(record("b", { status: "won", reasons: null, blockId: "B1" }));
      h.record(record("c", { status: "gone", reasons: null }));
      expect(h.counts()).toEqual({ won: 1, disliked: 1, gone: 1 });
      const [a, b] = h.seenSince(0);
      expect(h.byId(a!.id)).toMatchObject({ platformOfferId: "a", status: "disliked", reasons: ["pay"] });
      expect(h.byId(b!.id)).toMatchObject({ platformOfferId: "b", status: "won", reasons: [], blockId: "B1" });
      expect(h.byId(99)).toBeNull();
    });
  });

  it("pages newest first, by status too", async () => {
    await withHistory((h) => {
      for (let i = 0; i < 5; i++) h.record(record(`o${i}`, { seenAt: NOW + i, status: i % 2 ? "won" : "disliked" }));
      expect(h.page(1, 2).map((o) => o.platformOfferId)).toEqual(["o4", "o3"]);
      expect(h.page(2, 2).map((o) => o.platformOfferId)).toEqual(["o2", "o1"]);
      expect(h.page(1, 10, "won").map((o) => o.platformOfferId)).toEqual(["o3", "o1"]);
      expect(h.seenSince(NOW + 3).map((o) => o.platformOfferId)).toEqual(["o3", "o4"]);
    });
  });

  it("holds won blocks not given back until they end", async () => {
    await withHistory((h) => {
      h.record(record("kept", { status: "won", blockId: "B1" }));
      h.record(record("ended", { status: "won", blockId: "B2", startsAt: NOW - 3 * HOUR, endsAt: NOW - HOUR }));
      h.record(record("given", { status: "won", blockId: "B3", startsAt: NOW + 4 * HOUR, endsAt: NOW + 5 * HOUR }));
      h.record(record("passed"));
      h.update(h.seenSince(0).find((o) => o.platformOfferId === "given")!.id, { forfeitedAt: NOW });
      expect(h.commitments(NOW)).toEqual([{ offerId: "kept", blockId: "B1", startsAt: NOW + HOUR, endsAt: NOW + 3 * HOUR }]);
      expect(h.wonStarting(NOW, NOW + DAY).map((o) => [o.platformOfferId, o.forfeitedAt])).toEqual([
        ["kept", null],
        ["given", NOW],
      ]);
    });
  });

  it("copies won blocks to D1 once, then their later state; a refusing D1 leaves them for the next call", async () => {
    const user = await seedUser();
    await withHistory(async (h) => {
      h.record(record("won", { userId: user.id, status: "won", blockId: "B1", reasons: null }));
      h.record(record("passed", { userId: user.id }));
      const down = {
        insert: () => {
          throw new Error("D1 unavailable");
        },
      } as unknown as Db;
      await expect(h.shareWon(down, user.id, NOW)).rejects.toThrow("D1 unavailable");
      expect(h.unsharedCount()).toBe(1);
      expect(await h.shareWon(db, user.id, NOW)).toBe(1);
      expect(h.unsharedCount()).toBe(0);
      expect(await h.shareWon(db, user.id, NOW)).toBe(0);
      h.update(h.seenSince(0)[0]!.id, { arrivedAt: NOW + HOUR });
      expect(h.unsharedCount()).toBe(1);
      await h.shareWon(db, user.id, NOW);
      const rows = await db.select().from(offers).where(eq(offers.userId, user.id));
      expect(rows.map((r) => [r.platformOfferId, r.blockId, r.arrivedAt])).toEqual([["won", "B1", NOW + HOUR]]);
    });
  });

  it("prunes what is past its time: offers not won after 90 days, won blocks after 400, and keeps the counts", async () => {
    await withHistory((h) => {
      h.record(record("old-passed", { seenAt: NOW - RETENTION.offersNotWon - 1 }));
      h.record(record("old-gone", { status: "gone", seenAt: NOW - RETENTION.offersNotWon - 1 }));
      h.record(record("recent-passed", { seenAt: NOW - RETENTION.offersNotWon + DAY }));
      h.record(record("old-won", { status: "won", seenAt: NOW - RETENTION.offersNotWon - 1 }));
      h.record(record("ancient-won", { status: "won", seenAt: NOW - RETENTION.offersWon - 1 }));
      expect(h.prune(NOW)).toBe(3);
      expect(h.seenSince(0).map((o) => o.platformOfferId)).toEqual(["old-won", "recent-passed"]);
      expect(h.counts()).toEqual({ won: 1, disliked: 1, gone: 0 });
      expect(h.oldestSeenAt()).toBe(NOW - RETENTION.offersNotWon - 1);
    });
  });

  it("reads a period for the replay with what the replay reads, as the full read gives it", async () => {
    await withHistory((h) => {
      h.record(record("a", { seenAt: NOW - 2 * HOUR }));
      h.record(record("b", { status: "won", reasons: null, blockId: "B1", stationId: "S2", timeZone: "America/Chicago", seenAt: NOW - HOUR }));
      h.record(record("c", { status: "gone", reasons: null, seenAt: NOW }));
      h.update(h.seenSince(0)[1]!.id, { forfeitedAt: NOW });
      const pick = (o: HistoryOffer) => [o.id, o.platformOfferId, o.stationId, o.timeZone, o.status, o.payCents, o.startsAt, o.endsAt, o.forfeitedAt, o.seenAt];
      const full = h.seenSince(NOW - HOUR);
      const replay = h.forReplay(NOW - HOUR);
      expect(replay.map(pick)).toEqual(full.map(pick));
      expect(replay.map(pick)).toEqual([
        [full[0]!.id, "b", "S2", "America/Chicago", "won", 6000, NOW + HOUR, NOW + 3 * HOUR, NOW, NOW - HOUR],
        [full[1]!.id, "c", "S1", "America/Denver", "gone", 6000, NOW + HOUR, NOW + 3 * HOUR, null, NOW],
      ]);
      expect(h.forReplay(0, 1).map((o) => o.platformOfferId)).toEqual(["a"]);
    });
  });
});
