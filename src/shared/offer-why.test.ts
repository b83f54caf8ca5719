import { describe, expect, it } from "vitest";
import { type DriverFilters, defaultDriverFilters, driverFiltersSchema } from "./driver-filters";
import { explainReasons } from "./offer-why";

const filters: DriverFilters = {
  ...defaultDriverFilters(),
  stations: [{ id: "A", minPayCents: 7000 }, { id: "B" }],
  minPayCents: 5000,
  minHourlyCents: 2500,
  arrivalBufferMinutes: 45,
  minDurationMinutes: 120,
  maxDurationMinutes: 240,
  dailyCapMinutes: 480,
};
const start = Date.parse("2026-06-14T10:00:00-04:00"); // a Sunday in New York
const offer = { stationId: "A", startsAt: start, endsAt: start + 3 * 3_600_000, payCents: 6200, timeZone: "America/New_York", seenAt: start - 20 * 60_000 };

describe("explainReasons", () => {
  it("gives each reason with its figures, the station's own minimum first", () => {
    const long = { ...offer, stationId: "C", endsAt: start + 5 * 3_600_000, payCents: 6200 };
    expect(explainReasons(long, ["pay", "hourly", "buffer", "day", "duration", "daily_cap", "overlap", "station", "window"], filters)).toEqual([
      { reason: "pay", payCents: 6200, minCents: 5000, outdated: true },
      { reason: "hourly", hourlyCents: 1240, minCents: 2500 },
      { reason: "buffer", minutesAhead: 20, bufferMinutes: 45 },
      { reason: "day", weekday: "sun" },
      { reason: "duration", minutes: 300, minMinutes: 120, maxMinutes: 240 },
      { reason: "daily_cap", capMinutes: 480 },
      { reason: "overlap" },
      { reason: "station" },
      { reason: "window" },
    ]);
    expect(explainReasons(offer, ["pay"], filters)).toEqual([{ reason: "pay", payCents: 6200, minCents: 7000 }]);
  });

  it("says a reason held at the time when today's filters no longer account for it", () => {
    // The driver has since lowered the minimums and the buffer, widened the lengths, dropped the
    // daily cap and added the station: every figure would now contradict the reason.
    const today: DriverFilters = {
      ...filters,
      stations: [{ id: "A" }],
      minPayCents: 0,
      minHourlyCents: 0,
      arrivalBufferMinutes: 0,
      maxDurationMinutes: 0,
      dailyCapMinutes: 0,
    };
    expect(explainReasons(offer, ["pay", "hourly", "buffer", "duration", "daily_cap", "station"], today)).toEqual([
      { reason: "pay", payCents: 6200, minCents: 0, outdated: true },
      { reason: "hourly", hourlyCents: 2067, minCents: 0, outdated: true },
      { reason: "buffer", minutesAhead: 20, bufferMinutes: 0, outdated: true },
      { reason: "duration", minutes: 180, minMinutes: 120, maxMinutes: 0, outdated: true },
      { reason: "daily_cap", capMinutes: 0, outdated: true },
      { reason: "station", outdated: true },
    ]);
    // No filters at all (the account was reset): the same.
    expect(explainReasons(offer, ["hourly"], null)).toEqual([{ reason: "hourly", hourlyCents: 2067, minCents: 0, outdated: true }]);
  });
  it("falls back to the global minimum, and skips reasons it does not know", () => {
    expect(explainReasons({ ...offer, stationId: "B", payCents: 4500 }, ["pay", "mystery"], filters)).toEqual([
      { reason: "pay", payCents: 4500, minCents: 5000 },
    ]);
  });
});

describe("driverFiltersSchema", () => {
  it("accepts the defaults once a station is chosen", () => {
    expect(driverFiltersSchema.safeParse({ ...defaultDriverFilters(), stations: [{ id: "A" }] }).success).toBe(true);
  });
  it("refuses duplicates, unknown weekdays and fractional cents", () => {
    const base = { ...defaultDriverFilters(), stations: [{ id: "A" }] };
    for (const bad of [
      { ...base, stations: [{ id: "A" }, { id: "A" }] },
      { ...base, schedule: { xyz: [] } },
      { ...base, minPayCents: 10.5 },
      { ...base, schedule: { mon: Array.from({ length: 7 }, () => ({ start: "01:00", end: "02:00" })) } },
    ]) {
      expect(driverFiltersSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});
