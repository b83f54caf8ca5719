import { KNOWN_AREA_CODES, type Location, locationOf, locationOfAreaCode } from "./area-codes";
import { type RegionRule, ruleFor, STRICTEST_RULE } from "./state-rules";

/**
 * Quiet hours: a marketing message reaches a recipient only inside the allowed window of their
 * rule, in every time zone their area code may put them in. Outside it, the message waits for the
 * next allowed minute. Computed with the runtime's time-zone database (Intl), so daylight saving,
 * Arizona's standard time all year and Newfoundland's half hour come out right.
 */

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** Far enough to pass any weekend or Sunday ban; a rule that allows nothing within it is a bug. */
const HORIZON_DAYS = 8;

type LocalParts = { year: number; month: number; day: number; weekday: number; minute: number };

const formats = new Map<string, Intl.DateTimeFormat>();
function formatFor(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      weekday: "short",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
    });
    formats.set(zone, f);
  }
  return f;
}

const WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

export function localParts(t: number, zone: string): LocalParts {
  const parts: Record<string, string> = {};
  for (const p of formatFor(zone).formatToParts(new Date(t))) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    weekday: WEEKDAYS[parts.weekday!]!,
    minute: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

/** The zone's offset from UTC at instant t, in ms (local = utc + offset). */
function offsetAt(t: number, zone: string): number {
  const p = localParts(t, zone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, Math.floor(p.minute / 60), p.minute % 60);
  return asUtc - Math.floor(t / MINUTE_MS) * MINUTE_MS;
}

/**
 * The instant a local wall-clock time happens in a zone. Twice round the offset, so a date across a
 * daylight-saving change gets the offset in force at that moment. (Our windows start at 8:00 or
 * later, never inside the 2 am hour that a change skips or repeats.)
 */
export function zonedTimeToUtc(year: number, month: number, day: number, minute: number, zone: string): number {
  const wall = Date.UTC(year, month - 1, day, 0, minute);
  let t = wall - offsetAt(wall, zone);
  t = wall - offsetAt(t, zone);
  return t;
}

export function isAllowedAt(location: Location, rule: RegionRule, t: number): boolean {
  return location.zones.every((zone) => {
    const p = localParts(t, zone);
    const w = rule.days[p.weekday];
    return !!w && p.minute >= w.start && p.minute < w.end;
  });
}

export function ruleOfLocation(location: Location): RegionRule {
  return location.country === null ? STRICTEST_RULE : ruleFor(location.region, location.country);
}

/**
 * The first instant at or after `now` when a marketing message may reach this location: `now`
 * itself when allowed. The allowed time is the intersection of one window per zone, so it always
 * begins where some zone's window begins; those starts are the only candidates to try.
 */
export function nextAllowedAtLocation(location: Location, now: number): number {
  const rule = ruleOfLocation(location);
  if (isAllowedAt(location, rule, now)) return now;
  const candidates: number[] = [];
  for (const zone of location.zones) {
    for (let d = -1; d <= HORIZON_DAYS; d++) {
      const p = localParts(now + d * DAY_MS, zone);
      const w = rule.days[p.weekday];
      if (!w) continue;
      const start = zonedTimeToUtc(p.year, p.month, p.day, w.start, zone);
      if (start > now) candidates.push(start);
    }
  }
  candidates.sort((a, b) => a - b);
  for (const c of candidates) if (isAllowedAt(location, rule, c)) return c;
  throw new Error(`No allowed time within ${HORIZON_DAYS} days for zones ${location.zones.join(", ")}`);
}

export function nextAllowedAt(e164: string, now: number): number {
  return nextAllowedAtLocation(locationOf(e164), now);
}

/** Key of numbers whose area code is not in the table, in the per-area-code map below. */
export const UNKNOWN_AREA_CODE = "*";
const known = new Set(KNOWN_AREA_CODES);
/** The key a number's area code has in deferralByAreaCode's map. */
export const deferralKey = (areaCode: string) => (known.has(areaCode) ? areaCode : UNKNOWN_AREA_CODE);

/**
 * For a whole audience at once: area code → the instant its numbers may be messaged, for the area
 * codes that must wait (those allowed now are left out). Expansion joins rows to this map by the
 * area code, so deferral is set-based however large the audience.
 */
export function deferralByAreaCode(now: number): Record<string, number> {
  const map: Record<string, number> = {};
  // Hundreds of area codes share a few dozen (zones, rule) pairs: compute each pair once.
  const byPair = new Map<string, number>();
  for (const code of [...KNOWN_AREA_CODES, UNKNOWN_AREA_CODE]) {
    const location = locationOfAreaCode(code === UNKNOWN_AREA_CODE ? null : code);
    const key = `${ruleOfLocation(location).cites}|${location.zones.join(",")}`;
    let at = byPair.get(key);
    if (at === undefined) {
      at = nextAllowedAtLocation(location, now);
      byPair.set(key, at);
    }
    if (at > now) map[code] = at;
  }
  return map;
}
