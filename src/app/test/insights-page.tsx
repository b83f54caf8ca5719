/** The insights page's tests: a driver's report and what-if answers, the page rendered signed in, and charts drawn without a canvas. */
import { beforeEach, vi } from "vitest";
import type { DriverFilters } from "../../shared/driver-filters";
import type { InsightsReport, MarketSlice, WhatIfResult } from "../../shared/insights";
import { setLanguage } from "../i18n";
import { drawn } from "./fake-uplot";
import { aDriver, renderRoutes, signedIn, stubApi } from "./render";

vi.mock("uplot", () => import("./fake-uplot"));

const { default: InsightsPage } = await import("../features/driver/InsightsPage");

export const slice = (shown: number, over: Partial<MarketSlice> = {}): MarketSlice => ({
  shown,
  won: 0,
  gone: 0,
  disliked: shown,
  medianHourlyCents: shown ? 2500 : null,
  medianPayCents: shown ? 8000 : null,
  ...over,
});

export const weeks = ["2031-04-14", "2031-04-21", "2031-04-28", "2031-05-05", "2031-05-12", "2031-05-19", "2031-05-26", "2031-06-02"];

export const report: InsightsReport = {
  now: Date.UTC(2031, 5, 4, 12),
  earnings: weeks.map((weekStart, i) => ({
    weekStart,
    blocks: i === 7 ? 3 : 1,
    minutes: i === 7 ? 630 : 210,
    payCents: i === 7 ? 31_500 : 10_500,
    hourlyCents: 3000,
    forfeits: i === 6 ? 1 : 0,
  })),
  market: {
    days: 30,
    totals: { shown: 1234, won: 10, gone: 300, disliked: 924, medianHourlyCents: 2740, medianPayCents: 9600 },
    byStation: [
      { stationId: "DAX5", stationName: "DAX5 Doral", ...slice(1000, { won: 8, gone: 250, disliked: 742 }) },
      { stationId: "DMI2", stationName: "DMI2 Hialeah", ...slice(234, { won: 2, gone: 50, disliked: 182, medianHourlyCents: null, medianPayCents: null }) },
    ],
    byHour: Array.from({ length: 24 }, (_, hour) => ({ hour, ...slice(hour === 15 ? 200 : hour > 5 ? 40 : 0) })),
    byWeekday: (["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const).map((weekday) => ({ weekday, ...slice(weekday === "sat" ? 400 : 139) })),
    reasons: [
      { reason: "hourly", count: 700 },
      { reason: "window", count: 224 },
    ],
  },
  findings: [
    { kind: "under_hourly", stationName: "DAX5", count: 180, medianHourlyCents: 2740, minHourlyCents: 3000 },
    { kind: "gone", count: 12, share: 0.25 },
    { kind: "best_hour", stationName: "DAX5", hour: 15, medianHourlyCents: 3350 },
  ],
};

export const saved: DriverFilters = {
  stations: [{ id: "DAX5", minPayCents: null, minHourlyCents: null }],
  minPayCents: 5000,
  minHourlyCents: 3000,
  arrivalBufferMinutes: 30,
  minDurationMinutes: 0,
  maxDurationMinutes: 0,
  dailyCapMinutes: 0,
  schedule: { mon: [{ start: "06:00", end: "22:00" }] },
};

export const result = (blocks: number, payCents: number, over: Partial<WhatIfResult["replay"]> = {}): WhatIfResult => ({
  days: 30,
  offers: 1234,
  actual: { blocks: 10, minutes: 2100, payCents: 105_000 },
  replay: { blocks, minutes: blocks * 210, payCents, newlyTaken: 4, gone: 2, ...over },
  tookMs: 12,
});

type Answers = Parameters<typeof stubApi>[0];

export function stub(over: Answers = {}) {
  return stubApi({
    "/api/driver/insights": { body: report },
    "/api/driver/insights/what-if": { body: result(10, 105_000, { newlyTaken: 0, gone: 0 }) },
    "/api/driver/filters": { body: { filters: saved, setupComplete: true } },
    ...over,
  });
}

export function renderPage() {
  return renderRoutes(
    [
      { path: "/flex/insights", element: <InsightsPage /> },
      { path: "*", element: <p>elsewhere</p> },
    ],
    { path: "/flex/insights", session: signedIn(aDriver()), toaster: true },
  );
}

export const whatIfCalls = (calls: ReturnType<typeof stubApi>) => calls.filter((c) => c.path === "/api/driver/insights/what-if");

/** Each test starts in English, with no chart drawn yet. */
export function resetEachTest() {
  beforeEach(async () => {
    drawn.length = 0;
    await setLanguage("en");
  });
}
