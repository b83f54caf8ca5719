import { describe, expect, it } from "vitest";
import { planHolds, SEARCH_LEAD_MS, type SearchPlan, searchPlan, windowIntervals } from "./search-plan";

const NY = "America/New_York";
const at = (iso: string) => Date.parse(iso);

describe("windowIntervals", () => {
  it("turns a day's windows into instants in the station's zone, overnight ones ending the next day", () => {
    const from = at("2026-06-10T00:00:00-04:00"); // a Wednesday
    const list = windowIntervals(
      {
        wed: [
          { start: "08:00", end: "12:00" },
          { start: "22:00", end: "02:00" },
        ],
      },
      NY,
      from,
      from + 86_400_000,
    );
    expect(list).toEqual([
      { start: at("2026-06-10T08:00:00-04:00"), end: at("2026-06-10T12:00:00-04:00") },
      { start: at("2026-06-10T22:00:00-04:00"), end: at("2026-06-11T02:00:00-04:00") },
    ]);
  });
  it("a whole day on the spring-forward Sunday is 23 hours", () => {
    const from = at("2026-03-08T00:00:00-05:00");
    const [day] = windowIntervals({ sun: [{ start: "00:00", end: "00:00" }] }, NY, from, from + 3_600_000);
    expect(day!.end - day!.start).toBe(23 * 3_600_000);
  });
});

describe("searchPlan", () => {
  const schedule = {
    wed: [
      { start: "08:00", end: "12:00" },
      { start: "12:00", end: "14:00" },
    ],
  };
  it("searches inside a window, until the last touching window closes", () => {
    expect(searchPlan(schedule, [NY], at("2026-06-10T09:00:00-04:00"))).toEqual({ searching: true, until: at("2026-06-10T14:00:00-04:00") });
  });
  it("searches a little before a window opens", () => {
    const open = at("2026-06-10T08:00:00-04:00");
    expect(searchPlan(schedule, [NY], open - SEARCH_LEAD_MS + 1000).searching).toBe(true);
    expect(searchPlan(schedule, [NY], open - SEARCH_LEAD_MS - 1000)).toEqual({ searching: false, opensAt: open });
  });
  it("after the day's windows, the next one is a week on", () => {
    expect(searchPlan(schedule, [NY], at("2026-06-10T15:00:00-04:00"))).toEqual({ searching: false, opensAt: at("2026-06-17T08:00:00-04:00") });
  });
  it("each station's zone counts: 09:00 in Los Angeles is searching while New York's window is over", () => {
    const now = at("2026-06-10T12:30:00-07:00"); // 15:30 in New York
    expect(searchPlan(schedule, [NY], now).searching).toBe(false);
    expect(searchPlan(schedule, [NY, "America/Los_Angeles"], now)).toEqual({ searching: true, until: at("2026-06-10T14:00:00-07:00") });
  });
  it("no windows: never", () => {
    expect(searchPlan({}, [NY], Date.now())).toEqual({ searching: false, opensAt: null });
  });
});

describe("planHolds", () => {
  const T = at("2026-06-10T09:00:00-04:00");
  const rows: [string, SearchPlan, number, boolean][] = [
    ["searching, before its end", { searching: true, until: T + 1000 }, T, true],
    ["searching, at its end", { searching: true, until: T }, T, false],
    ["searching, past its end", { searching: true, until: T - 1000 }, T, false],
    ["paused, before the lead", { searching: false, opensAt: T + SEARCH_LEAD_MS + 1000 }, T, true],
    ["paused, at the lead before the window", { searching: false, opensAt: T + SEARCH_LEAD_MS }, T, false],
    ["paused, within the lead", { searching: false, opensAt: T + 1000 }, T, false],
    ["paused with no window ahead: worked out again", { searching: false, opensAt: null }, T, false],
  ];
  for (const [name, plan, now, holds] of rows) {
    it(name, () => {
      expect(planHolds(plan, now)).toBe(holds);
    });
  }
});
