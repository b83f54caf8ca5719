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

/**
 * The weekday, date and minute of the day (0–1439) that clocks in `timeZone` show at `epochMs`.
 * Throws RangeError for an unknown zone.
 *
 * Intl answers in about 10 µs, which a replay of 20,000 offers (each judged, then counted against
 * the daily cap) cannot afford. So the zone's offset is read through Intl once at the start of
 * each UTC hour; when it is the same at the start of the next hour, it holds through the hour (no
 * zone changes its offset twice within an hour), and the clocks show the instant moved by it. An
 * hour with a change in it, and instants before 1973 (some zones' offsets had seconds then), are
 * read through Intl every time: the answer is always Intl's.
 */
export function localReading(epochMs: number, timeZone: string): LocalReading {
  if (epochMs >= WHOLE_MINUTE_OFFSETS_FROM && epochMs < READ_HOURLY_UNTIL) {
    const offset = hourOffset(Math.floor(epochMs / HOUR_MS), timeZone);
    if (!Number.isNaN(offset)) {
      const wall = new Date(epochMs + offset);
      return {
        weekday: WEEKDAYS[(wall.getUTCDay() + 6) % 7]!,
        year: wall.getUTCFullYear(),
        month: wall.getUTCMonth() + 1,
        day: wall.getUTCDate(),
        minuteOfDay: wall.getUTCHours() * 60 + wall.getUTCMinutes(),
      };
    }
  }
  return intlReading(epochMs, timeZone);
}

const HOUR_MS = 3_600_000;
/** Since 1973 every zone's offset is whole minutes (Liberia's -0:44:30 was the last with seconds). */
const WHOLE_MINUTE_OFFSETS_FROM = Date.UTC(1973, 0, 1);
const READ_HOURLY_UNTIL = Date.UTC(9000, 0, 1);
/** Hours remembered per zone (about a year); past the bound the zone's are dropped. */
const MAX_HOURS_PER_ZONE = 8192;
/**
 * Per zone: its offset from UTC at the start of each UTC hour read, and the hours read: each one's
 * offset, or NaN when the offset changes within it. The zone read last is kept at hand.
 */
type ZoneHours = { timeZone: string; starts: Map<number, number>; hours: Map<number, number> };
const zoneHours = new Map<string, ZoneHours>();
let lastZone: ZoneHours | null = null;

function hourOffset(hour: number, timeZone: string): number {
  let zone = lastZone?.timeZone === timeZone ? lastZone : zoneHours.get(timeZone);
  if (!zone) {
    // Throws for an unknown zone before anything is kept for it.
    formatterFor(timeZone);
    if (zoneHours.size >= MAX_FORMATTERS) zoneHours.delete(zoneHours.keys().next().value!);
    zone = { timeZone, starts: new Map(), hours: new Map() };
    zoneHours.set(timeZone, zone);
  }
  lastZone = zone;
  let offset = zone.hours.get(hour);
  if (offset === undefined) {
    const atStart = startOffset(zone, hour);
    offset = atStart === startOffset(zone, hour + 1) ? atStart : Number.NaN;
    if (zone.hours.size >= MAX_HOURS_PER_ZONE) zone.hours.clear();
    zone.hours.set(hour, offset);
  }
  return offset;
}

function startOffset(zone: ZoneHours, hour: number): number {
  let offset = zone.starts.get(hour);
  if (offset === undefined) {
    const start = hour * HOUR_MS;
    const r = intlReading(start, zone.timeZone);
    offset = Date.UTC(r.year, r.month - 1, r.day, 0, r.minuteOfDay) - start;
    if (zone.starts.size >= MAX_HOURS_PER_ZONE) zone.starts.clear();
    zone.starts.set(hour, offset);
  }
  return offset;
}

function intlReading(epochMs: number, timeZone: string): LocalReading {
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
  // Read by character codes: a regular expression here was a tenth of a replay's time.
  if (text.length !== 5 || text.charCodeAt(2) !== COLON) return null;
  const h1 = text.charCodeAt(0) - ZERO;
  const h2 = text.charCodeAt(1) - ZERO;
  const m1 = text.charCodeAt(3) - ZERO;
  const m2 = text.charCodeAt(4) - ZERO;
  const digit = (d: number) => d >= 0 && d <= 9;
  if (!digit(h2) || !digit(m2) || h1 < 0 || h1 > 2 || (h1 === 2 && h2 > 3) || m1 < 0 || m1 > 5) return null;
  return (h1 * 10 + h2) * 60 + m1 * 10 + m2;
}

const COLON = 58;
const ZERO = 48;

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
