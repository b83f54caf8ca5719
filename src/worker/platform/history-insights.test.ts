/**
 * The insights' figures over hand-made histories: weeks on each station's calendar (across a
 * daylight-saving change and zones), the market's slices and medians, findings only with enough
 * offers and the largest effect first, the what-if beside what was kept, and an empty history.
 */
import { describe, expect, it } from "vitest";
import type { DriverFilters } from "../../shared/driver-filters";
import { EARNINGS_WEEKS, type HistoryOffer } from "../../shared/insights";
import { earningsByWeek, findings, insightsReport, marketReport, median, whatIf } from "./history-insights";

const MIN = 60_000;
const HOUR = 60 * MIN;
/** Wednesday 2026-11-04, noon in New York (EST since Sunday's change). */
const NOW = Date.parse("2026-11-04T17:00:00Z");
const NY = "America/New_York";
const LA = "America/Los_Angeles";

let nextId = 1;
type RowSpec = Partial<HistoryOffer> & { starts: string; minutes: number };
/** An offer starting at `starts` (ISO, with its offset) for `minutes`, seen a day before it by default. */
function row({ starts, minutes, ...over }: RowSpec): HistoryOffer {
  const startsAt = Date.parse(starts);
  return {
    id: nextId++,
    platformOfferId: `O${nextId}`,
    stationId: "DAX5",
    stationName: "DAX5",
    timeZone: NY,
    status: "won",
    reasons: [],
    payCents: 6000,
    startsAt,
    endsAt: startsAt + minutes * MIN,
    blockId: null,
    forfeitedAt: null,
    arrivedAt: null,
    seenAt: Math.min(startsAt - 24 * HOUR, NOW - HOUR),
    ...over,
  };
}

const wholeDay = [{ start: "00:00", end: "00:00" }];
const filters = (change: Partial<DriverFilters> = {}): DriverFilters => ({
  stations: [{ id: "DAX5" }, { id: "DLA9", minHourlyCents: 2800 }],
  minPayCents: 0,
  minHourlyCents: 3000,
  arrivalBufferMinutes: 30,
  minDurationMinutes: 0,
  maxDurationMinutes: 0,
  schedule: { mon: wholeDay, tue: wholeDay, wed: wholeDay, thu: wholeDay, fri: wholeDay },
  dailyCapMinutes: 0,
  ...change,
});

describe("median", () => {
  it("the middle value; the two middle ones' mean, rounded; null for none", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([2740, 2000, 2741, 3000])).toBe(2741);
    expect(median([10, 200])).toBe(105);
    expect(median([])).toBeNull();
  });
});

describe("earningsByWeek", () => {
  it("counts each block in the week its start falls in on its station's calendar, Monday first", () => {
    const rows = [
      // Sunday 23:30 in New York, the day clocks went back: last week.
      row({ starts: "2026-11-01T23:30:00-05:00", minutes: 120, payCents: 6000 }),
      // Across the change: 00:30 EDT to 03:30 EST is four real hours, on Sunday.
      row({ starts: "2026-11-01T00:30:00-04:00", minutes: 240, payCents: 10_000 }),
      // Sunday 22:00 in Los Angeles (Monday 01:00 in New York): last week, on its own calendar.
      row({ starts: "2026-11-01T22:00:00-08:00", minutes: 180, payCents: 7000, stationId: "DLA9", timeZone: LA }),
      // Monday 00:15: this week.
      row({ starts: "2026-11-02T00:15:00-05:00", minutes: 60, payCents: 3000 }),
      // Given back: counted apart, its pay not.
      row({ starts: "2026-11-05T10:00:00-05:00", minutes: 120, payCents: 9000, forfeitedAt: NOW - HOUR }),
      // Not won: not earnings.
      row({ starts: "2026-11-03T10:00:00-05:00", minutes: 120, status: "gone" }),
      row({ starts: "2026-11-03T13:00:00-05:00", minutes: 120, status: "disliked", reasons: ["pay"] }),
      // Before the eight weeks, and next week.
      row({ starts: "2026-09-13T10:00:00-04:00", minutes: 120 }),
      row({ starts: "2026-11-09T10:00:00-05:00", minutes: 120 }),
    ];
    const weeks = earningsByWeek(rows, NOW);
    expect(weeks.map((w) => w.weekStart)).toEqual([
      "2026-09-14",
      "2026-09-21",
      "2026-09-28",
      "2026-10-05",
      "2026-10-12",
      "2026-10-19",
      "2026-10-26",
      "2026-11-02",
    ]);
    expect(weeks[6]).toEqual({ weekStart: "2026-10-26", blocks: 3, minutes: 540, payCents: 23_000, hourlyCents: Math.round((23_000 * 60) / 540), forfeits: 0 });
    expect(weeks[7]).toEqual({ weekStart: "2026-11-02", blocks: 1, minutes: 60, payCents: 3000, hourlyCents: 3000, forfeits: 1 });
    expect(weeks.slice(0, 6).every((w) => w.blocks === 0 && w.hourlyCents === null && w.forfeits === 0)).toBe(true);
  });

  it("the current week is the one on the calendar of the zone most offers were in", () => {
    // Sunday 2026-11-08 12:00 UTC is Sunday morning in New York and Monday 01:00 in Auckland.
    const now = Date.parse("2026-11-08T12:00:00Z");
    const auckland = [row({ starts: "2026-11-09T09:00:00+13:00", minutes: 120, timeZone: "Pacific/Auckland", seenAt: now - HOUR })];
    expect(earningsByWeek(auckland, now).at(-1)).toMatchObject({ weekStart: "2026-11-09", blocks: 1 });
    const newYork = [row({ starts: "2026-11-08T09:00:00-05:00", minutes: 120, seenAt: now - 5 * HOUR })];
    expect(earningsByWeek(newYork, now).at(-1)).toMatchObject({ weekStart: "2026-11-02", blocks: 1 });
  });

  it("an empty history has its eight weeks, all empty", () => {
    const weeks = earningsByWeek([], NOW);
    expect(weeks).toHaveLength(EARNINGS_WEEKS);
    expect(weeks.at(-1)).toEqual({ weekStart: "2026-11-02", blocks: 0, minutes: 0, payCents: 0, hourlyCents: null, forfeits: 0 });
  });
});

describe("marketReport", () => {
  const rows = [
    // DAX5: $20, $30 and $25 an hour over two hours.
    row({ starts: "2026-11-05T08:00:00-05:00", minutes: 120, payCents: 4000, status: "disliked", reasons: ["hourly"], seenAt: NOW - 2 * HOUR }),
    row({ starts: "2026-11-05T11:00:00-05:00", minutes: 120, payCents: 6000, status: "won", seenAt: NOW - 2 * HOUR }),
    row({ starts: "2026-11-06T08:30:00-05:00", minutes: 120, payCents: 5000, status: "gone", seenAt: NOW - 3 * 24 * HOUR }),
    // DLA9, Monday 17:30 in Los Angeles (Tuesday 01:30 UTC).
    row({
      starts: "2026-11-02T17:30:00-08:00",
      minutes: 240,
      payCents: 8000,
      stationId: "DLA9",
      stationName: "DLA9",
      timeZone: LA,
      status: "disliked",
      reasons: ["hourly", "window"],
      seenAt: NOW - 4 * 24 * HOUR,
    }),
    // Seen 20 days ago: in the 30 days only.
    row({ starts: "2026-10-16T08:00:00-04:00", minutes: 120, payCents: 9000, status: "disliked", reasons: ["buffer"], seenAt: NOW - 20 * 24 * HOUR }),
    // Seen 40 days ago: in neither.
    row({ starts: "2026-09-26T08:00:00-04:00", minutes: 120, payCents: 9000, status: "won", seenAt: NOW - 40 * 24 * HOUR }),
  ];

  it("slices the offers of the period by station, station-local hour and weekday, with medians", () => {
    const m = marketReport(rows, 7, NOW);
    expect(m.days).toBe(7);
    expect(m.totals).toEqual({ shown: 4, won: 1, gone: 1, disliked: 2, medianHourlyCents: 2250, medianPayCents: 5500 });
    expect(m.byStation).toEqual([
      { stationId: "DAX5", stationName: "DAX5", shown: 3, won: 1, gone: 1, disliked: 1, medianHourlyCents: 2500, medianPayCents: 5000 },
      { stationId: "DLA9", stationName: "DLA9", shown: 1, won: 0, gone: 0, disliked: 1, medianHourlyCents: 2000, medianPayCents: 8000 },
    ]);
    expect(m.byHour).toHaveLength(24);
    expect(m.byHour.map((h) => h.hour)).toEqual(Array.from({ length: 24 }, (_, i) => i));
    expect(m.byHour[8]).toMatchObject({ shown: 2, medianHourlyCents: 2250 });
    expect(m.byHour[17]).toMatchObject({ shown: 1, medianHourlyCents: 2000 });
    expect(m.byHour[3]).toEqual({ hour: 3, shown: 0, won: 0, gone: 0, disliked: 0, medianHourlyCents: null, medianPayCents: null });
    expect(m.byWeekday.map((d) => [d.weekday, d.shown])).toEqual([
      ["mon", 1],
      ["tue", 0],
      ["wed", 0],
      ["thu", 2],
      ["fri", 1],
      ["sat", 0],
      ["sun", 0],
    ]);
    expect(m.reasons).toEqual([
      { reason: "hourly", count: 2 },
      { reason: "window", count: 1 },
    ]);
  });

  it("thirty days hold more; reasons tied keep the filter's order", () => {
    const m = marketReport(rows, 30, NOW);
    expect(m.totals.shown).toBe(5);
    expect(m.reasons).toEqual([
      { reason: "hourly", count: 2 },
      { reason: "buffer", count: 1 },
      { reason: "window", count: 1 },
    ]);
  });

  it("an empty history: zeros, no medians, every hour and day present", () => {
    const m = marketReport([], 30, NOW);
    expect(m.totals).toEqual({ shown: 0, won: 0, gone: 0, disliked: 0, medianHourlyCents: null, medianPayCents: null });
    expect(m.byStation).toEqual([]);
    expect(m.byHour).toHaveLength(24);
    expect(m.byWeekday).toHaveLength(7);
    expect(m.reasons).toEqual([]);
  });
});

describe("findings", () => {
  /** `n` offers at DAX5 on Thursday morning paying `hourly` cents an hour each over two hours. */
  const dax = (n: number, hourly: (i: number) => number, over: Partial<HistoryOffer> = {}) =>
    Array.from({ length: n }, (_, i) =>
      row({
        starts: `2026-11-05T${String(6 + i).padStart(2, "0")}:00:00-05:00`,
        minutes: 120,
        payCents: hourly(i) * 2,
        status: "disliked",
        seenAt: NOW - HOUR,
        ...over,
      }),
    );

  it("tells how many offers at a station were under its minimum per hour, and their median", () => {
    const rows = dax(6, (i) => 2600 + i * 50);
    expect(findings(rows, filters(), NOW)).toContainEqual({
      kind: "under_hourly",
      stationName: "DAX5",
      count: 6,
      medianHourlyCents: 2725,
      minHourlyCents: 3000,
    });
  });

  it("judges under the current filters at the instant each offer was seen; a station's own minimum counts", () => {
    // Under DAX5's $30 but not DLA9's own $28.
    const la = dax(6, () => 2900, { stationId: "DLA9", stationName: "DLA9", timeZone: LA });
    expect(findings(la, filters(), NOW).filter((f) => f.kind === "under_hourly")).toEqual([]);
    // Seen 20 minutes before they started this morning: too soon for the 30-minute buffer.
    const soon = Array.from({ length: 5 }, (_, i) => {
      const o = row({ starts: `2026-11-04T${String(7 + i).padStart(2, "0")}:00:00-05:00`, minutes: 120, payCents: 8000, status: "disliked" });
      return { ...o, seenAt: o.startsAt - 20 * MIN };
    });
    expect(findings(soon, filters(), NOW)).toContainEqual({ kind: "buffer", count: 5, bufferMinutes: 30 });
  });

  it("says nothing about fewer than five offers, or about offers seen before this week", () => {
    expect(
      findings(
        dax(4, () => 2000),
        filters(),
        NOW,
      ),
    ).toEqual([]);
    expect(
      findings(
        dax(6, () => 2000, { seenAt: NOW - 8 * 24 * HOUR }),
        filters(),
        NOW,
      ),
    ).toEqual([]);
    expect(findings([], filters(), NOW)).toEqual([]);
  });

  it("puts the largest effect first, and the best hour last", () => {
    const rows = [
      // Under the minimum: 6 × $52–$57.
      ...dax(6, (i) => 2600 + i * 50),
      // Taken first by someone else: 5 × $100.
      ...dax(5, () => 5000, { status: "gone" }),
      // Asked for and won: the gone share is 5 of 7.
      ...dax(2, () => 5000, { status: "won" }),
      // Saturday at 10:00: outside the schedule, 5 × $80.
      ...Array.from({ length: 5 }, () => row({ starts: "2026-11-07T10:00:00-05:00", minutes: 120, payCents: 8000, status: "disliked", seenAt: NOW - HOUR })),
    ];
    const list = findings(rows, filters(), NOW);
    expect(list.map((f) => f.kind)).toEqual(["gone", "outside_windows", "under_hourly", "best_hour"]);
    expect(list[0]).toEqual({ kind: "gone", count: 5, share: 5 / 7 });
    expect(list[1]).toEqual({ kind: "outside_windows", count: 5, medianHourlyCents: 4000 });
    // Only 10:00 saw five offers or more: Saturday's five at $40, one under the minimum at $28, one gone at $50.
    expect(list[3]).toEqual({ kind: "best_hour", stationName: "DAX5", hour: 10, medianHourlyCents: 4000 });
  });
});

describe("whatIf", () => {
  const rows = [
    // Won and kept: $60 over 2 h.
    row({ starts: "2026-11-05T08:00:00-05:00", minutes: 120, payCents: 6000, status: "won", seenAt: NOW - 2 * HOUR }),
    // Won, then given back.
    row({ starts: "2026-11-05T12:00:00-05:00", minutes: 120, payCents: 7000, status: "won", forfeitedAt: NOW - HOUR, seenAt: NOW - 2 * HOUR }),
    // Refused for pay per hour ($25): a lower minimum takes it.
    row({ starts: "2026-11-06T08:00:00-05:00", minutes: 120, payCents: 5000, status: "disliked", reasons: ["hourly"], seenAt: NOW - 2 * HOUR }),
    // Taken first by someone else.
    row({ starts: "2026-11-06T12:00:00-05:00", minutes: 120, payCents: 9000, status: "gone", seenAt: NOW - 2 * HOUR }),
    // Seen 10 days ago: in the 30 days only.
    row({ starts: "2026-10-26T08:00:00-04:00", minutes: 180, payCents: 9000, status: "won", seenAt: NOW - 10 * 24 * HOUR }),
  ];

  it("replays the period under the filters asked about, beside what was kept", () => {
    const result = whatIf(rows, { days: 7, filters: filters({ minHourlyCents: 2400 }) }, NOW);
    expect(result).toMatchObject({
      days: 7,
      offers: 4,
      actual: { blocks: 1, minutes: 120, payCents: 6000 },
      replay: { blocks: 2, minutes: 240, payCents: 11_000, newlyTaken: 1, gone: 1 },
    });
    expect(result.tookMs).toBeGreaterThanOrEqual(0);
    const month = whatIf(rows, { days: 30, filters: filters({ minHourlyCents: 2400 }) }, NOW);
    expect(month).toMatchObject({ offers: 5, actual: { blocks: 2, payCents: 15_000 }, replay: { blocks: 3 } });
  });

  it("an empty history: nothing either way", () => {
    expect(whatIf([], { days: 30, filters: filters() }, NOW)).toMatchObject({
      offers: 0,
      actual: { blocks: 0 },
      replay: { blocks: 0, newlyTaken: 0, gone: 0 },
    });
  });
});

describe("insightsReport", () => {
  it("puts the three together; without filters there are no findings", () => {
    const report = insightsReport([], null, 30, NOW);
    expect(report).toMatchObject({ now: NOW, findings: [] });
    expect(report.earnings).toHaveLength(EARNINGS_WEEKS);
    expect(report.market.days).toBe(30);
  });
});
