/**
 * The decision: does a driver's filter set take an offer, and if not, why. The capture engine, the
 * dashboard's "why not taken" and the tests all use this one function (docs/engine.md).
 *
 * Times are epoch ms; d = block minutes = (endsAt − startsAt) / 60000, so a block across a
 * daylight-saving change is as long as it really is. Weekday and minute of the day are read in the
 * station's zone at the block's start: not from the offer's expiry, not in the server's zone, and
 * the buffer is a plain difference of instants (it does not wrap at 24 h).
 */
import { localReading, parseClock, type Weekday } from "./zoned-time";

export type Reason = "station" | "pay" | "hourly" | "buffer" | "day" | "window" | "duration";
export type OfferToJudge = { stationId: string; startsAt: number; endsAt: number; payCents: number; timeZone: string };
export type CaptureFilters = {
  stations: { id: string; minPayCents?: number | null; minHourlyCents?: number | null }[];
  minPayCents: number;
  minHourlyCents: number;
  arrivalBufferMinutes: number;
  minDurationMinutes: number;
  maxDurationMinutes: number; // 0 = no limit
  schedule: Partial<Record<Weekday, { start: string; end: string }[]>>; // "HH:MM", station-local
};

const MINUTE = 60_000;
const DAY_MINUTES = 1440;

/** Whether a window [start, end] of a day holds a block starting at local minute s lasting d minutes. */
function holds(window: { start: string; end: string }, s: number, d: number): boolean {
  const ws = parseClock(window.start);
  let we = parseClock(window.end);
  if (ws === null || we === null) return false;
  // An end at or before the start runs past midnight; "00:00"–"00:00" is the whole day.
  if (we <= ws) we += DAY_MINUTES;
  return s >= ws && s + d <= we;
}

/**
 * Every reason that applies, in the order of `Reason`; take = none apply. A station's own minimum,
 * when set, replaces the global one. Throws RangeError for a time zone the runtime does not know.
 */
export function evaluateOffer(offer: OfferToJudge, filters: CaptureFilters, now: number): { take: boolean; reasons: Reason[] } {
  const reasons: Reason[] = [];
  const d = (offer.endsAt - offer.startsAt) / MINUTE;
  const station = filters.stations.find((s) => s.id === offer.stationId);

  if (!station) reasons.push("station");

  const minPay = station?.minPayCents ?? filters.minPayCents;
  if (offer.payCents < minPay) reasons.push("pay");

  const minHourly = station?.minHourlyCents ?? filters.minHourlyCents;
  if (offer.payCents * 60 < minHourly * d) reasons.push("hourly");

  const buffer = filters.arrivalBufferMinutes;
  if (buffer > 0 && offer.startsAt - now < buffer * MINUTE) reasons.push("buffer");

  const local = localReading(offer.startsAt, offer.timeZone);
  const windows = filters.schedule[local.weekday] ?? [];
  if (windows.length === 0) reasons.push("day");
  else if (!windows.some((w) => holds(w, local.minuteOfDay, d))) reasons.push("window");

  if ((filters.minDurationMinutes > 0 && d < filters.minDurationMinutes) || (filters.maxDurationMinutes > 0 && d > filters.maxDurationMinutes)) {
    reasons.push("duration");
  }

  return { take: reasons.length === 0, reasons };
}
