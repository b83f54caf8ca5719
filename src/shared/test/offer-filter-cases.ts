/** The offer filter's tests: a Wednesday offer in New York that the base filters take, each test changing one thing. */
import { type CaptureFilters, evaluateOffer, type OfferToJudge, type Reason } from "../offer-filter";
import type { Weekday } from "../zoned-time";

export const MIN = 60_000;
export const HOUR = 60 * MIN;
export const NY = "America/New_York";
export const LA = "America/Los_Angeles";

export const allDays = (windows: { start: string; end: string }[]): CaptureFilters["schedule"] =>
  Object.fromEntries((["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as Weekday[]).map((d) => [d, windows]));

/** Filters that take the base offer; each test changes one thing. */
export function filters(over: Partial<CaptureFilters> = {}): CaptureFilters {
  return {
    stations: [{ id: "S1" }, { id: "S2", minPayCents: null, minHourlyCents: null }],
    minPayCents: 5000,
    minHourlyCents: 2000,
    arrivalBufferMinutes: 30,
    minDurationMinutes: 0,
    maxDurationMinutes: 0,
    schedule: allDays([{ start: "06:00", end: "22:00" }]),
    ...over,
  };
}

/** Wednesday 2026-06-10, 10:00–13:00 in New York, $72. */
export const START = Date.parse("2026-06-10T10:00:00-04:00");
export const NOW = START - 2 * HOUR;
export function offer(over: Partial<OfferToJudge> = {}): OfferToJudge {
  return { stationId: "S1", startsAt: START, endsAt: START + 3 * HOUR, payCents: 7200, timeZone: NY, ...over };
}

export const reasons = (o: OfferToJudge, f: CaptureFilters, now = NOW): Reason[] => evaluateOffer(o, f, now).reasons;
