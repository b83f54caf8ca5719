/**
 * The what-if's replay (src/shared/replay.ts) against the engine it models: the real capture engine
 * runs its alarm loop against the fake platform over several polls (overlaps within a poll and
 * across polls, the daily cap on the station's day across zones, an offer taken first by someone
 * else freeing its slot for the next round, filter reasons, offers at the edge of the buffer), then
 * its recorded history is replayed under the same filters: every offer it won is won again, every
 * one gone is gone, every one it disliked is refused for the same reasons.
 */
import { describe, expect, it } from "vitest";
import type { HistoryOffer } from "../../shared/insights";
import { replayHistory } from "../../shared/replay";
import { connectedDriver } from "../test/connected-driver";
import { engineStarter, HOUR, recordsOf, waitForRecords } from "../test/engine-fixtures";
import { controlOf } from "../test/fake-platform-world";
import { db } from "../test/fixtures";
import { loadDriverProfile } from "./driver-store";

const start = engineStarter();

/** The driver's recorded history, as the insights read it (the one place that knows where records live). */
async function recordedHistory(userId: number): Promise<HistoryOffer[]> {
  return recordsOf(userId);
}

type Accept = { driverId: string; offerId: string; at: number; result: string; shownAt: number | null };

describe("the replay of an engine's history under its own filters", () => {
  it("gives back every decision the engine made, poll by poll", async () => {
    const d = await connectedDriver({
      zones: ["America/New_York", "America/Los_Angeles"],
      filters: { minHourlyCents: 2000, arrivalBufferMinutes: 60, dailyCapMinutes: 300 },
    });
    const [ny, la] = d.stations as [string, string];
    const at = (iso: string) => Date.parse(iso);
    const offer = (serviceAreaId: string, startsAt: number, hours: number, dollars: number, extra: { competitorFirst?: boolean } = {}) => ({
      serviceAreaId,
      startsAt,
      endsAt: startsAt + hours * HOUR,
      payCents: dollars * 100,
      ...extra,
    });

    // First poll. New York, Wednesday 2031-03-12 (EDT): the best pay per hour first, an overlap, the cap.
    const day1 = at("2031-03-12T08:00:00-04:00");
    // Thursday: the best one is taken first by someone else; the one overlapping it is won next round.
    const day2 = at("2031-03-13T08:00:00-04:00");
    // Offers about an hour out, seconds apart: the 60-minute buffer is judged at the instant of the
    // poll, which comes a moment after they are put up (the first always too soon, the last in time).
    const edge = Math.ceil((Date.now() + HOUR) / 1000) * 1000;
    const first = await d.world.offers([
      offer(ny, day1, 3, 90), // $30/h: won
      offer(ny, day1 + HOUR, 4, 100), // $25/h, overlaps it
      offer(ny, day1 + 6 * HOUR, 3, 75), // $25/h, past the 300-minute cap with the first
      offer(la, at("2031-03-12T10:00:00-07:00"), 3, 40), // $13.33/h: under the minimum
      offer(ny, day2, 3, 120, { competitorFirst: true }), // $40/h: gone
      offer(ny, day2 + HOUR, 3, 90), // $30/h, overlaps the gone one
      ...[-1, 0, 1, 2, 4, 8, 15].map((s) => offer(la, edge + s * 1000, 0.5, 30)),
    ]);
    expect((await start(d.user.id)).state).toBe("searching");
    await waitForRecords(d.user.id, first.length, 15_000);

    // Second poll: the block won in the first is held; the cap reads it on Los Angeles' day too.
    const second = await d.world.offers([
      offer(ny, day1 + 2 * HOUR, 1, 60), // overlaps the block won
      offer(la, at("2031-03-12T14:00:00-07:00"), 3, 90), // 5 p.m. in New York: the same day, past the cap
      offer(ny, at("2031-03-14T09:00:00-04:00"), 2, 60), // Friday: won
    ]);
    const rows = await waitForRecords(d.user.id, first.length + second.length, 15_000);

    const byId = new Map(rows.map((r) => [r.platformOfferId, r]));
    const outcome = (id: string) => {
      const r = byId.get(id)!;
      return r.status === "disliked" ? r.reasons : r.status;
    };
    // The engine did meet each case.
    expect(first.slice(0, 6).map(outcome)).toEqual(["won", ["overlap"], ["daily_cap"], ["hourly"], "gone", "won"]);
    expect(second.map(outcome)).toEqual([["overlap"], ["daily_cap"], "won"]);
    expect(new Set(rows.map((r) => r.seenAt)).size).toBeGreaterThanOrEqual(2);
    const edges = first.slice(6).map(outcome);
    expect(edges[0]).toEqual(["buffer"]);
    expect(edges.filter((o) => o === "won")).toHaveLength(1);

    // Each record's seenAt is the instant it was judged: after the platform sent the answer carrying it,
    // before its accept arrived.
    const accepts = ((await (await fetch(`${controlOf(d.world.base)}/accepts`)).json()) as { accepts: Accept[] }).accepts.filter(
      (a) => a.driverId === d.driverId,
    );
    expect(accepts.length).toBeGreaterThanOrEqual(5);
    for (const a of accepts) {
      const seenAt = byId.get(a.offerId)!.seenAt;
      // Two processes' millisecond clocks (workerd reads its clock as I/O completes, so under a loaded
      // clean-clone run it read 4 ms early): 15 ms of slack, against the ~40 ms between the alarm's
      // start and the answer that the old seenAt was off by.
      expect(seenAt).toBeGreaterThanOrEqual(a.shownAt! - 15);
      expect(seenAt).toBeLessThanOrEqual(a.at);
    }

    const history = await recordedHistory(d.user.id);
    const filters = (await loadDriverProfile(db, d.user.id))!.filters;
    const replay = replayHistory(history, filters!);
    const replayed = history.map((o, i) => {
      const r = replay.decisions[i]!;
      return [o.platformOfferId, r.status === "disliked" ? r.reasons : r.status];
    });
    expect(replayed).toEqual(history.map((o) => [o.platformOfferId, o.status === "disliked" ? o.reasons : o.status]));
    expect(replay.newlyTaken).toBe(0);
  });
});
