/**
 * When a driver's engine searches: while now is inside a schedule window of some selected station,
 * read in that station's zone, or less than SEARCH_LEAD_MS before one opens (docs/engine.md).
 */
import type { CaptureFilters } from "../../shared/offer-filter";
import { instantAt, localReading, parseClock, WEEKDAYS, type Weekday } from "../../shared/zoned-time";

/** Searching starts this long before a window opens, so the first minutes of a window are covered. */
export const SEARCH_LEAD_MS = 10 * 60_000;

const DAY = 86_400_000;
// Date.UTC(…).getUTCDay() numbers Sunday 0; WEEKDAYS starts on Monday.
const weekdayOfUtcDay = (utcDay: number): Weekday => WEEKDAYS[(utcDay + 6) % 7]!;

/** The instants a day's windows cover, in `timeZone`, for the local dates around [from, to). */
export function windowIntervals(schedule: CaptureFilters["schedule"], timeZone: string, from: number, to: number): { start: number; end: number }[] {
  const first = localReading(from - DAY, timeZone);
  const out: { start: number; end: number }[] = [];
  for (let k = 0; ; k++) {
    const date = new Date(Date.UTC(first.year, first.month - 1, first.day + k));
    const [y, m, d] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
    const dayStart = instantAt(y, m, d, 0, timeZone);
    if (dayStart >= to) break;
    for (const w of schedule[weekdayOfUtcDay(date.getUTCDay())] ?? []) {
      const ws = parseClock(w.start);
      const we = parseClock(w.end);
      if (ws === null || we === null) continue;
      const start = instantAt(y, m, d, ws, timeZone);
      // An end at or before the start is on the next day ("00:00"–"00:00": the whole day).
      const end = we <= ws ? instantAt(y, m, d + 1, we, timeZone) : instantAt(y, m, d, we, timeZone);
      if (end > from && start < to) out.push({ start, end });
    }
  }
  return out;
}

export type SearchPlan =
  /** Searching now, until `until` (when every open window has closed). */
  | { searching: true; until: number }
  /** Not now; the next window opens at `opensAt` (null: none in the coming week). */
  | { searching: false; opensAt: number | null };

/**
 * Whether a plan worked out earlier still holds at `now`: a search until its windows close, a pause
 * until the lead before the next window (a pause with no window ahead is worked out again).
 */
export function planHolds(plan: SearchPlan, now: number): boolean {
  return plan.searching ? now < plan.until : plan.opensAt !== null && now < plan.opensAt - SEARCH_LEAD_MS;
}

/** Whether to search at `now` given the schedule and the zones of the selected stations. */
export function searchPlan(schedule: CaptureFilters["schedule"], timeZones: string[], now: number): SearchPlan {
  const intervals = [...new Set(timeZones)].flatMap((tz) => windowIntervals(schedule, tz, now, now + 8 * DAY)).sort((a, b) => a.start - b.start);
  // Merge overlapping or touching intervals, each widened by the lead at its start.
  let until: number | null = null;
  let opensAt: number | null = null;
  for (const i of intervals) {
    const begins = i.start - SEARCH_LEAD_MS;
    if (until !== null) {
      if (begins <= until) until = Math.max(until, i.end);
      continue;
    }
    if (begins <= now && i.end > now) until = i.end;
    else if (begins > now && opensAt === null) opensAt = i.start;
  }
  if (until !== null) return { searching: true, until };
  return { searching: false, opensAt };
}
