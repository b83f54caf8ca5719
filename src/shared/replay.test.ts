/**
 * The replay of a history, rule by rule: polls in time order judged at their own instant, rounds
 * within a poll (overlap, the daily cap, `later` takes after a gone accept), blocks held until they
 * are given back, the answers the history has, and the totals of kept blocks.
 */
import { describe, expect, it } from "vitest";
import type { DriverFilters } from "./driver-filters";
import type { HistoryOffer } from "./insights";
import { type ReplayStatus, replayHistory } from "./replay";

const MIN = 60_000;
const HOUR = 60 * MIN;
/** Wednesday 2031-03-12, 00:00 UTC: offers are placed in hours after it. */
const T0 = Date.parse("2031-03-12T00:00:00Z");
const wholeDay = [{ start: "00:00", end: "00:00" }];

/** Filters that take every offer at S1 and S2, whatever it pays. */
const open = (change: Partial<DriverFilters> = {}): DriverFilters => ({
  stations: [{ id: "S1" }, { id: "S2" }],
  minPayCents: 0,
  minHourlyCents: 0,
  arrivalBufferMinutes: 0,
  minDurationMinutes: 0,
  maxDurationMinutes: 0,
  schedule: { mon: wholeDay, tue: wholeDay, wed: wholeDay, thu: wholeDay, fri: wholeDay, sat: wholeDay, sun: wholeDay },
  dailyCapMinutes: 0,
  ...change,
});

let nextId = 1;
/** Offer `id`, seen at hour `seen`, from hour `from` to hour `to` after T0, paying `dollars`, recorded as `status`. */
function row(
  id: string,
  seen: number,
  from: number,
  to: number,
  dollars: number,
  status: HistoryOffer["status"] = "won",
  over: Partial<HistoryOffer> = {},
): HistoryOffer {
  return {
    id: nextId++,
    platformOfferId: id,
    stationId: "S1",
    stationName: "Station 1",
    timeZone: "UTC",
    status,
    reasons: [],
    payCents: dollars * 100,
    startsAt: T0 + from * HOUR,
    endsAt: T0 + to * HOUR,
    blockId: status === "won" ? `B-${id}` : null,
    forfeitedAt: null,
    arrivedAt: null,
    seenAt: T0 + seen * HOUR,
    ...over,
  };
}

/** The replay's decisions as [id, status, reasons]. */
function replayed(history: HistoryOffer[], filters = open()) {
  const { decisions } = replayHistory(history, filters);
  return history.map((o, i) => [o.platformOfferId, decisions[i]!.status, decisions[i]!.reasons] as [string, ReplayStatus, string[]]);
}

describe("replayHistory: rounds", () => {
  const rows: { name: string; history: HistoryOffer[]; filters?: DriverFilters; decisions: [string, ReplayStatus, string[]][] }[] = [
    {
      name: "an offer overlapping a better one of the same poll is refused for the overlap",
      history: [row("cheap", 0, 4, 8, 80, "disliked"), row("rich", 0, 5, 7, 60)],
      decisions: [
        ["cheap", "disliked", ["overlap"]],
        ["rich", "won", []],
      ],
    },
    {
      name: "a block taken in an earlier poll is held: an overlapping offer later is refused",
      history: [row("first", 0, 6, 9, 60), row("later", 1, 7, 8, 90, "disliked")],
      decisions: [
        ["first", "won", []],
        ["later", "disliked", ["overlap"]],
      ],
    },
    {
      name: "a block that has ended is no longer held",
      history: [row("first", 0, 1, 2, 60), row("after", 3, 1.5, 2.5, 60, "disliked")],
      decisions: [
        ["first", "won", []],
        ["after", "taken", []],
      ],
    },
    {
      name: "the daily cap within one poll: the second waits for the first, then passes the cap",
      history: [row("a", 0, 8, 11, 90), row("b", 0, 14, 17, 60, "disliked")],
      filters: open({ dailyCapMinutes: 300 }),
      decisions: [
        ["a", "won", []],
        ["b", "disliked", ["daily_cap"]],
      ],
    },
    {
      name: "the daily cap across polls, on the station's local day",
      history: [
        row("a", 0, 8, 11, 90),
        // 2031-03-13 01:00 UTC is still the 12th in Los Angeles: the same day as "a" there.
        row("la", 1, 25, 28, 60, "disliked", { stationId: "S2", timeZone: "America/Los_Angeles" }),
        // The 13th in UTC: a day of its own.
        row("utc", 1, 30, 33, 60, "disliked"),
      ],
      filters: open({ dailyCapMinutes: 300 }),
      decisions: [
        ["a", "won", []],
        ["la", "disliked", ["daily_cap"]],
        ["utc", "taken", []],
      ],
    },
    {
      name: "a gone accept frees its slot: the overlapping take left for later is asked for next round",
      history: [row("rich", 0, 5, 7, 60, "gone"), row("cheap", 0, 4, 8, 80, "disliked")],
      decisions: [
        ["rich", "gone", []],
        ["cheap", "taken", []],
      ],
    },
    {
      name: "a gone accept frees its share of the cap for the next round",
      history: [row("rich", 0, 8, 11, 90, "gone"), row("next", 0, 14, 17, 60, "disliked")],
      filters: open({ dailyCapMinutes: 300 }),
      decisions: [
        ["rich", "gone", []],
        ["next", "taken", []],
      ],
    },
    {
      name: "a block given back is held until then, and not after",
      history: [
        row("given", 0, 10, 13, 60, "won", { forfeitedAt: T0 + 2 * HOUR }),
        row("before", 1, 11, 12, 90, "disliked"),
        row("at", 2, 11, 12, 90, "disliked"),
      ],
      decisions: [
        ["given", "won", []],
        ["before", "disliked", ["overlap"]],
        ["at", "taken", []],
      ],
    },
    {
      name: "a block won by the engine that the replay refuses holds nothing",
      history: [row("won", 0, 10, 13, 60), row("clash", 1, 11, 12, 90, "disliked")],
      filters: open({ minPayCents: 7000 }),
      decisions: [
        ["won", "disliked", ["pay"]],
        ["clash", "taken", []],
      ],
    },
    {
      name: "the buffer counts from each poll's own instant",
      history: [row("short", 1, 1 + 59 / 60, 3, 60, "disliked"), row("enough", 2, 3, 4, 60, "disliked")],
      filters: open({ arrivalBufferMinutes: 60 }),
      decisions: [
        ["short", "disliked", ["buffer"]],
        ["enough", "taken", []],
      ],
    },
    {
      name: "an offer is read in its own station's zone: Wednesday 02:00 UTC is Tuesday in Los Angeles",
      history: [row("la", 0, 2, 4, 60, "won", { stationId: "S2", timeZone: "America/Los_Angeles" }), row("utc", 0, 6, 8, 60)],
      filters: open({ schedule: { wed: wholeDay } }),
      decisions: [
        ["la", "disliked", ["day"]],
        ["utc", "won", []],
      ],
    },
    {
      name: "every filter reason is kept, in the filter's order",
      history: [row("poor", 0, 2, 12, 40, "won", { stationId: "S9" })],
      filters: open({ minPayCents: 5000, minHourlyCents: 1000, maxDurationMinutes: 480 }),
      decisions: [["poor", "disliked", ["station", "pay", "hourly", "duration"]]],
    },
    {
      name: "an unknown zone is the station reason",
      history: [row("mars", 0, 2, 4, 60, "won", { timeZone: "Mars/Olympus_Mons" })],
      decisions: [["mars", "disliked", ["station"]]],
    },
  ];
  for (const r of rows) {
    it(r.name, () => {
      expect(replayed(r.history, r.filters)).toEqual(r.decisions);
    });
  }

  it("replays polls in time order, whatever the order of the history", () => {
    const history = [row("later", 1, 7, 8, 90, "disliked"), row("first", 0, 6, 9, 60)];
    expect(replayed(history)).toEqual([
      ["later", "disliked", ["overlap"]],
      ["first", "won", []],
    ]);
  });
});

describe("replayHistory: totals", () => {
  it("counts kept blocks (won or taken, not given back), the newly taken, the gone and the given back", () => {
    const history = [
      row("won", 0, 1, 3, 60),
      row("given", 0, 4, 6, 70, "won", { forfeitedAt: T0 + HOUR }),
      row("taken", 0, 7, 8.5, 45, "disliked"),
      row("gone", 0, 10, 12, 50, "gone"),
      row("refused", 0, 13, 14, 10, "won"),
    ];
    const r = replayHistory(history, open({ minPayCents: 2000 }));
    expect(r.totals).toEqual({ blocks: 2, minutes: 120 + 90, payCents: 6000 + 4500 });
    expect({ newlyTaken: r.newlyTaken, gone: r.gone, forfeits: r.forfeits }).toEqual({ newlyTaken: 1, gone: 1, forfeits: 1 });
    expect(r.decisions.map((d) => d.kept)).toEqual([true, false, true, false, false]);
  });

  it("the totals alone, without a decision per offer, are the same", () => {
    const history = [row("a", 0, 1, 3, 60), row("b", 0, 2, 4, 80, "disliked"), row("c", 1, 5, 6, 30, "gone")];
    const full = replayHistory(history, open());
    const lean = replayHistory(history, open(), { decisions: false });
    expect(lean.decisions).toEqual([]);
    expect({ ...lean, decisions: full.decisions }).toEqual(full);
  });

  it("an empty history replays to nothing", () => {
    expect(replayHistory([], open())).toEqual({ decisions: [], totals: { blocks: 0, minutes: 0, payCents: 0 }, newlyTaken: 0, gone: 0, forfeits: 0 });
  });
});
