/**
 * The accept plan, rule by rule: which new offers are judged, how the takes are ordered, which
 * blocks are held, and the daily cap on the station's day (its rounds of accepts are in
 * accept-plan-rounds.test.ts).
 */
import { describe, expect, it } from "vitest";
import { type Commitment, heldBlocks, judgeOffers, offersToJudge, overDailyCap, type ScheduledLike } from "./accept-plan";
import type { CaptureFilters } from "./offer-filter";
import { HOUR, ids, offer, type PlatformOffer, span, stations, T0 } from "./test/accept-plan-offers";

const wholeDay = [{ start: "00:00", end: "00:00" }];
/** Filters that take every offer at S1, LA and MARS, whatever it pays. */
const open: CaptureFilters = {
  stations: [{ id: "S1" }, { id: "LA" }, { id: "MARS" }],
  minPayCents: 0,
  minHourlyCents: 0,
  arrivalBufferMinutes: 0,
  minDurationMinutes: 0,
  maxDurationMinutes: 0,
  schedule: { mon: wholeDay, tue: wholeDay, wed: wholeDay, thu: wholeDay, fri: wholeDay, sat: wholeDay, sun: wholeDay },
};

describe("offersToJudge", () => {
  const listed = [offer("new", 1, 2, 50), offer("hidden", 1, 2, 50, { hidden: true }), offer("decided", 1, 2, 50), offer("pending", 1, 2, 50)];
  it("keeps the new and the undecided ones, in the order listed; drops the hidden and the decided", () => {
    expect(ids(offersToJudge(listed, (id) => id === "decided"))).toEqual(["new", "pending"]);
  });
  it("keeps nothing from an empty answer", () => {
    expect(offersToJudge([], () => false)).toEqual([]);
  });
});

describe("judgeOffers", () => {
  const rows: { name: string; offers: PlatformOffer[]; filters?: Partial<CaptureFilters>; takes: string[]; disliked: [string, string[]][] }[] = [
    { name: "takes an offer that passes every filter", offers: [offer("a", 2, 4, 60)], takes: ["a"], disliked: [] },
    { name: "dislikes an offer under the minimum pay", offers: [offer("a", 2, 4, 40)], filters: { minPayCents: 5000 }, takes: [], disliked: [["a", ["pay"]]] },
    { name: "takes an offer at exactly the minimum pay", offers: [offer("a", 2, 4, 50)], filters: { minPayCents: 5000 }, takes: ["a"], disliked: [] },
    { name: "dislikes a station not selected", offers: [offer("a", 2, 4, 60, { stationId: "S9" })], takes: [], disliked: [["a", ["station"]]] },
    {
      name: "a station whose zone the runtime does not know is the station reason, alone",
      offers: [offer("a", 2, 4, 1, { stationId: "MARS" })],
      filters: { minPayCents: 5000 },
      takes: [],
      disliked: [["a", ["station"]]],
    },
    {
      name: "reads the day in the station's zone: Wednesday 02:00 UTC is Tuesday in Los Angeles",
      offers: [offer("a", 2, 4, 60, { stationId: "LA" })],
      filters: { schedule: { wed: wholeDay } },
      takes: [],
      disliked: [["a", ["day"]]],
    },
    {
      name: "a selected station missing from the catalogue is read in UTC",
      offers: [offer("a", 2, 4, 60, { stationId: "S2" })],
      filters: { stations: [{ id: "S2" }], schedule: { wed: wholeDay } },
      takes: ["a"],
      disliked: [],
    },
    {
      name: "the buffer counts from the judging instant",
      offers: [offer("soon", 0.5, 2, 60), offer("later", 1, 2, 60)],
      filters: { arrivalBufferMinutes: 60 },
      takes: ["later"],
      disliked: [["soon", ["buffer"]]],
    },
    {
      name: "the disliked keep the order listed, each with all its reasons",
      offers: [offer("b", 2, 4, 10), offer("ok", 5, 6, 60), offer("a", 7, 9, 10, { stationId: "S9" })],
      filters: { minPayCents: 5000 },
      takes: ["ok"],
      disliked: [
        ["b", ["pay"]],
        ["a", ["station", "pay"]],
      ],
    },
    {
      name: "takes go best pay per hour first",
      offers: [offer("20/h", 1, 5, 80), offer("30/h", 6, 8, 60), offer("25/h", 9, 13, 100)],
      takes: ["30/h", "25/h", "20/h"],
      disliked: [],
    },
    {
      name: "at the same pay per hour, the earlier start first",
      offers: [offer("late", 9, 11, 40), offer("early", 1, 3, 40)],
      takes: ["early", "late"],
      disliked: [],
    },
    {
      name: "at the same pay per hour and start, the better pay first",
      offers: [offer("short", 1, 3, 40), offer("long", 1, 4, 60)],
      takes: ["long", "short"],
      disliked: [],
    },
    {
      name: "an exact tie keeps the order listed",
      offers: [offer("first", 1, 3, 40), offer("second", 1, 3, 40)],
      takes: ["first", "second"],
      disliked: [],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const judged = judgeOffers(row.offers, { ...open, ...row.filters }, stations, T0);
      expect(ids(judged.takes)).toEqual(row.takes);
      expect(judged.disliked.map((d) => [d.offer.id, d.reasons])).toEqual(row.disliked);
    });
  }
});

describe("heldBlocks", () => {
  const own = (offerId: string, blockId: string | null, from: number, to: number): Commitment => ({ offerId, blockId, ...span(from, to) });
  const scheduled = (id: string | null, offerId: string | null, from: number, to: number): ScheduledLike => ({ id, offerId, ...span(from, to) });
  const now = T0 + 2 * HOUR;
  const rows: { name: string; own: Commitment[]; scheduled: ScheduledLike[]; held: [string, string | null][] }[] = [
    { name: "nothing held", own: [], scheduled: [], held: [] },
    {
      name: "keeps our blocks that have not ended",
      own: [own("o1", "B1", 1, 3), own("o2", "B2", 4, 6)],
      scheduled: [],
      held: [
        ["o1", "B1"],
        ["o2", "B2"],
      ],
    },
    { name: "drops our blocks that ended, at their end too", own: [own("o1", "B1", 0, 1), own("o2", "B2", 1, 2)], scheduled: [], held: [] },
    {
      name: "adds the platform's blocks after ours",
      own: [own("o1", "B1", 3, 4)],
      scheduled: [scheduled("B9", "o9", 5, 6)],
      held: [
        ["o1", "B1"],
        ["o9", "B9"],
      ],
    },
    {
      name: "a scheduled block that is ours (same block) is held once",
      own: [own("o1", "B1", 3, 4)],
      scheduled: [scheduled("B1", "o1", 3, 4)],
      held: [["o1", "B1"]],
    },
    {
      name: "a scheduled block of an offer we hold with no block id yet is held once",
      own: [own("o1", null, 3, 4)],
      scheduled: [scheduled("B1", "o1", 3, 4)],
      held: [["o1", null]],
    },
    { name: "a block taken in the platform's app has its block id for an offer id", own: [], scheduled: [scheduled("B7", null, 3, 4)], held: [["B7", "B7"]] },
    { name: "drops the platform's blocks that ended", own: [], scheduled: [scheduled("B7", "o7", 0, 2)], held: [] },
    {
      name: "an assignment naming no offer, at the times of a block we won without an id yet, is that block: held once",
      own: [own("o1", null, 3, 4)],
      scheduled: [scheduled("SA1", null, 3, 4)],
      held: [["o1", null]],
    },
    { name: "an entry without an id still counts as busy time", own: [], scheduled: [scheduled(null, null, 3, 4)], held: [["scheduled-0", null]] },
    {
      name: "the platform listing a block twice holds it once",
      own: [],
      scheduled: [scheduled("B7", "o7", 3, 4), scheduled("B7", "o7", 3, 4)],
      held: [["o7", "B7"]],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      expect(heldBlocks(row.own, row.scheduled, now).map((c) => [c.offerId, c.blockId])).toEqual(row.held);
    });
  }
  it("answers copies: adding a won block later leaves the profile's list as it was", () => {
    const mine = [own("o1", "B1", 3, 4)];
    const held = heldBlocks(mine, [], now);
    held[0]!.endsAt = 0;
    held.push(own("o2", "B2", 5, 6));
    expect(mine).toEqual([own("o1", "B1", 3, 4)]);
  });
});

describe("overDailyCap", () => {
  // Los Angeles is UTC−7 on 2031-03-12 (daylight time began on the 9th): its Wednesday runs 07:00 UTC to 07:00 UTC.
  const rows: { name: string; offer: PlatformOffer; held: { startsAt: number; endsAt: number }[]; cap: number; over: boolean }[] = [
    { name: "no cap (0) never passes", offer: offer("a", 1, 23, 100), held: [span(0, 1)], cap: 0, over: false },
    { name: "an offer alone within the cap", offer: offer("a", 1, 4, 100), held: [], cap: 180, over: false },
    { name: "an offer alone longer than the cap", offer: offer("a", 1, 4, 100), held: [], cap: 179, over: true },
    { name: "held and offered together exactly at the cap", offer: offer("a", 5, 7, 100), held: [span(1, 4)], cap: 300, over: false },
    { name: "held and offered together a minute over the cap", offer: offer("a", 5, 7, 100), held: [span(1, 4)], cap: 299, over: true },
    { name: "blocks of another day do not count", offer: offer("a", 5, 7, 100), held: [span(-20, -17), span(25, 28)], cap: 120, over: false },
    {
      name: "a held block from the day before does not count, though it ends on this one",
      offer: offer("a", 1, 3, 100),
      held: [span(-2, 2)],
      cap: 120,
      over: false,
    },
    { name: "a held block counts on the day it starts, though it ends on the next", offer: offer("a", 1, 3, 100), held: [span(22, 26)], cap: 300, over: true },
    {
      name: "days are the station's: 06:00 UTC is still Tuesday in Los Angeles",
      offer: offer("a", 8, 10, 100, { stationId: "LA" }),
      held: [span(4, 6)],
      cap: 120,
      over: false,
    },
    {
      name: "days are the station's: 07:00 UTC is Wednesday in Los Angeles",
      offer: offer("a", 8, 10, 100, { stationId: "LA" }),
      held: [span(7, 8)],
      cap: 120,
      over: true,
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      expect(overDailyCap(row.offer, row.held, row.cap, stations)).toBe(row.over);
    });
  }
});
