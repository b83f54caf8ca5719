import { DEFAULT_PAGE_SIZE, FIRST_PAGE, PAGE_SIZES } from "./paging";
import { z } from "./zod";

/**
 * The admin list filters (docs/product.md, admin notifications and validation), shared by the
 * notification panels (which send them as a query string) and the Worker (which turns them into
 * SQL). Dates are calendar days (YYYY-MM-DD) in the admin's time zone: a start date counts from
 * the start of that day, an end date to its end. The zone is `timeZone` (an IANA name, so each day
 * gets its own UTC offset and a range across a daylight-saving change is exact), or, from clients
 * that send only that, `tzOffsetMinutes` (Date#getTimezoneOffset: one offset for every day).
 */
// Date.parse rolls "2026-02-30" over to March 2 and Date.UTC maps years 0–99 to 1900–1999, so a
// day is real only if it survives the round trip unchanged.
export const isoDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: "Use YYYY-MM-DD", abort: true })
  .refine((d) => {
    const [y, m, day] = d.split("-").map(Number) as [number, number, number];
    const t = Date.UTC(y, m - 1, day);
    return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === d;
  }, "Not a date");
export function isTimeZone(name: string): boolean {
  try {
    zoneFormat(name);
    return true;
  } catch {
    return false;
  }
}
const triState = z.enum(["all", "yes", "no"]).default("all");
/** A repeated query parameter arrives as a string or a list; either way a bounded list. */
const stringList = (max: number) =>
  z
    .union([z.string().max(100), z.array(z.string().max(100)).max(max)])
    .optional()
    .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]).filter((s) => s.length > 0));
const pageSize = z.coerce
  .number()
  .int()
  .refine((n) => (PAGE_SIZES as readonly number[]).includes(n), `Rows per page must be one of ${PAGE_SIZES.join(", ")}`)
  .default(DEFAULT_PAGE_SIZE);
const paging = {
  page: z.coerce.number().int().min(FIRST_PAGE).max(100_000).default(FIRST_PAGE),
  pageSize,
  search: z.string().max(100).optional(),
  tzOffsetMinutes: z.coerce.number().int().min(-840).max(840).default(0),
  timeZone: z.string().max(64, { abort: true }).refine(isTimeZone, "Unknown time zone").optional(),
};

export const DRIVER_SORTS = ["name", "phone", "createdAt", "expirationAt", "region", "referral", "status"] as const;

export const driverAudienceSchema = z
  .object({
    app: z.enum(["flex", "spark"]).default("flex"),
    startDate: isoDay.optional(),
    endDate: isoDay.optional(),
    startExpirationDate: isoDay.optional(),
    endExpirationDate: isoDay.optional(),
    referral: stringList(100),
    region: stringList(200),
    goodStanding: triState,
    accountConnected: triState,
    setupComplete: triState,
    sort: z.enum(DRIVER_SORTS).default("createdAt"),
    dir: z.enum(["asc", "desc"]).default("desc"),
    ...paging,
  })
  .refine((f) => !f.startDate || !f.endDate || f.startDate <= f.endDate, { message: "The start date is after the end date", path: ["endDate"] })
  .refine((f) => !f.startExpirationDate || !f.endExpirationDate || f.startExpirationDate <= f.endExpirationDate, {
    message: "The start date is after the end date",
    path: ["endExpirationDate"],
  });
export type DriverAudience = z.infer<typeof driverAudienceSchema>;
export type DriverAudienceInput = z.input<typeof driverAudienceSchema>;

export const invitationAudienceSchema = z
  .object({
    startDate: isoDay.optional(),
    endDate: isoDay.optional(),
    registered: triState,
    accountConnected: triState,
    setupComplete: triState,
    ...paging,
  })
  .refine((f) => !f.startDate || !f.endDate || f.startDate <= f.endDate, { message: "The start date is after the end date", path: ["endDate"] });
export type InvitationAudience = z.infer<typeof invitationAudienceSchema>;
export type InvitationAudienceInput = z.input<typeof invitationAudienceSchema>;

/** This runtime's IANA zone (the browser's, in the console), if it names one. */
export function localTimeZone(): string | undefined {
  const name = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return name && isTimeZone(name) ? name : undefined;
}

/** The admin's zone: an IANA name, or minutes as Date#getTimezoneOffset gives them (UTC − local). */
export type Zone = string | number;

// Formats are costly to build, so each zone's is kept; the key is what the client sent (Intl also
// takes other spellings of a name), so the cache is emptied if it ever grows past any real list.
const zoneFormats = new Map<string, Intl.DateTimeFormat>();
const MAX_CACHED_ZONES = 1000;
function zoneFormat(timeZone: string): Intl.DateTimeFormat {
  let format = zoneFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    if (zoneFormats.size >= MAX_CACHED_ZONES) zoneFormats.clear();
    zoneFormats.set(timeZone, format);
  }
  return format;
}

/** The wall clock of a zone at an instant, read as if it were UTC (so subtracting gives the offset). */
function wallClock(timeZone: string, at: number): number {
  const parts: Record<string, number> = {};
  for (const p of zoneFormat(timeZone).formatToParts(at)) if (p.type !== "literal") parts[p.type] = Number(p.value);
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
}

const offsetMinutesAt = (timeZone: string, at: number) => Math.round((at - wallClock(timeZone, at)) / 60_000);
const utcMidnight = (day: string) => {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  return Date.UTC(y, m - 1, d);
};
export const nextDay = (day: string) => new Date(utcMidnight(day) + 86_400_000).toISOString().slice(0, 10);

/**
 * Epoch ms of the first millisecond of a calendar day in the admin's zone. With a zone name the
 * offset is the one in force at that midnight; where a daylight-saving change skips midnight, the
 * day starts at the first instant that exists on it.
 */
export function dayStart(day: string, zone: Zone): number {
  const base = utcMidnight(day);
  if (typeof zone === "number") return base + zone * 60_000;
  const first = base + offsetMinutesAt(zone, base) * 60_000;
  const candidates = [first, base + offsetMinutesAt(zone, first) * 60_000];
  const onDay = candidates.filter((t) => new Date(wallClock(zone, t)).toISOString().slice(0, 10) === day);
  return Math.min(...(onDay.length > 0 ? onDay : candidates));
}

/**
 * The bounds of consecutive calendar days, each [first ms, last ms] as dayStart and dayEnd give
 * them, at about one Intl reading a day instead of eight (a year of days took tens of ms of
 * formatToParts, the charts' main cost): a day's start is guessed from the previous day's offset
 * and kept when the zone's clock reads exactly that midnight then; otherwise (a change near
 * midnight) it is worked out in full.
 */
export function dayBounds(days: readonly string[], zone: Zone): [number, number][] {
  let offsetMs: number | null = null;
  const startOf = (day: string) => {
    const base = utcMidnight(day);
    const start = offsetMs !== null && typeof zone === "string" && wallClock(zone, base + offsetMs) === base ? base + offsetMs : dayStart(day, zone);
    offsetMs = start - base;
    return start;
  };
  // A day ends where the next begins: consecutive days share the reading.
  const bounds: [number, number][] = [];
  let start = days.length > 0 ? startOf(days[0]!) : 0;
  days.forEach((day, i) => {
    const next = nextDay(day);
    const end = startOf(next) - 1;
    bounds.push([start, end]);
    if (i + 1 < days.length) start = days[i + 1] === next ? end + 1 : startOf(days[i + 1]!);
  });
  return bounds;
}

/** The calendar day (YYYY-MM-DD) an instant falls on in an IANA zone. */
export function calendarDay(at: number, timeZone: string): string {
  return new Date(wallClock(timeZone, at)).toISOString().slice(0, 10);
}

/** Epoch ms of the last millisecond of a calendar day in the admin's zone (23 or 25 hours long on a change). */
export function dayEnd(day: string, zone: Zone): number {
  return dayStart(nextDay(day), zone) - 1;
}

/** A row of the drivers review table (docs/product.md, admin notifications). */
export type DriverRow = {
  id: number;
  name: string;
  phone: string;
  /** Billing data, like stripeExpressId: only for administrators with billingDetails (left out otherwise). */
  referral?: string | null;
  region: string | null;
  deliveryArea: string | null;
  goodStanding: boolean;
  accountConnected: boolean;
  setupComplete: boolean;
  expirationAt: number | null;
  status: "start" | "stop";
  stripeExpressId?: string | null;
};

/** A row of the unpaid-invitations review table. */
export type InvitationRow = {
  phone: string;
  name: string;
  unregistered: boolean;
  invitedAt: number;
  accountConnected: boolean;
  setupComplete: boolean;
  userId: number | null;
};
