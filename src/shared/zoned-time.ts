/**
 * Wall-clock readings of an instant in an IANA time zone, through Intl (both the Worker and the
 * browser have it, with the full tz database). Stations keep their own zone: an offer's weekday
 * and minute of the day are the station's, never the server's or the browser's.
 */
export type Weekday = "mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun";

/** @public (the driver filters and quiet hours use it) */
export const WEEKDAYS: readonly Weekday[] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

export type LocalReading = { weekday: Weekday; year: number; month: number; day: number; minuteOfDay: number };

// One formatter per zone: building them is the slow part. Bounded, since zones are few but input
// may spell many; past the bound the oldest is dropped.
const MAX_FORMATTERS = 256;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      weekday: "short",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
    });
    if (formatters.size >= MAX_FORMATTERS) formatters.delete(formatters.keys().next().value!);
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

const weekdayOf: Record<string, Weekday> = { Mon: "mon", Tue: "tue", Wed: "wed", Thu: "thu", Fri: "fri", Sat: "sat", Sun: "sun" };

/** True when the runtime knows the zone (an unknown one would make every reading throw). */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The weekday, date and minute of the day (0–1439) that clocks in `timeZone` show at `epochMs`. Throws RangeError for an unknown zone. */
export function localReading(epochMs: number, timeZone: string): LocalReading {
  const parts = formatterFor(timeZone).formatToParts(new Date(epochMs));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? "";
  return {
    weekday: weekdayOf[part("weekday")]!,
    year: Number(part("year")),
    month: Number(part("month")),
    day: Number(part("day")),
    minuteOfDay: Number(part("hour")) * 60 + Number(part("minute")),
  };
}

/** "HH:MM" (00:00–23:59) as minutes after midnight, or null when it is not one. */
export function parseClock(text: string): number | null {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  return match ? Number(match[1]) * 60 + Number(match[2]) : null;
}

/** Minutes after midnight as "HH:MM". */
export function formatClock(minutes: number): string {
  const m = ((Math.floor(minutes) % 1440) + 1440) % 1440;
  return `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
}

/** Offset of the zone's clocks from UTC at an instant, in ms (the wall time read as UTC, minus the instant). */
function offsetAt(epochMs: number, timeZone: string): number {
  const minute = Math.floor(epochMs / 60_000) * 60_000;
  const r = localReading(minute, timeZone);
  return Date.UTC(r.year, r.month - 1, r.day, 0, r.minuteOfDay) - minute;
}

/**
 * The instant at which clocks in `timeZone` show `minuteOfDay` on the given date. Offsets change
 * at most once around a given day, so the offsets of the day before and the day after are the
 * only candidates. On a day that shows the time twice (fall back) the first is meant; on one that
 * skips it (spring forward) the time is read on the old offset, so 02:30 becomes 03:30 (as
 * Temporal's "compatible" disambiguation does).
 */
export function instantAt(year: number, month: number, day: number, minuteOfDay: number, timeZone: string): number {
  const wallAsUtc = Date.UTC(year, month - 1, day, 0, minuteOfDay);
  const before = wallAsUtc - offsetAt(wallAsUtc - 86_400_000, timeZone);
  const after = wallAsUtc - offsetAt(wallAsUtc + 86_400_000, timeZone);
  const shows = (t: number) => offsetAt(t, timeZone) === wallAsUtc - t;
  const valid = [before, after].filter(shows);
  return valid.length > 0 ? Math.min(...valid) : before;
}
