import { z } from "zod";
import { isoDay, isTimeZone, nextDay } from "./audience";

/** The longest range the dashboard draws: a year and a day, so "the last 12 months" fits in any year. */
export const MAX_DASHBOARD_DAYS = 366;
/** The range the dashboard opens with: the last 30 days, today included. */
export const DEFAULT_DASHBOARD_DAYS = 30;

const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / 86_400_000;

/** Every calendar day from `from` to `to`, both included. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let d = from; d <= to && days.length <= MAX_DASHBOARD_DAYS; d = nextDay(d)) days.push(d);
  return days;
}

/** The day `n` days before `day`. */
export function dayMinus(day: string, n: number): string {
  return new Date((dayNumber(day) - n) * 86_400_000).toISOString().slice(0, 10);
}

/**
 * GET /api/admin/dashboard and /dashboard/series: a range of calendar days in the admin's IANA
 * zone (both ends included; "today" is also the zone's). Without dates, the last 30 days.
 */
export const dashboardQuerySchema = z
  .object({
    from: isoDay.optional(),
    to: isoDay.optional(),
    timeZone: z.string().max(64, { abort: true }).refine(isTimeZone, "Unknown time zone").default("UTC"),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: "The start date is after the end date", path: ["to"] })
  .refine((q) => !q.from || !q.to || dayNumber(q.to) - dayNumber(q.from) < MAX_DASHBOARD_DAYS, {
    message: `At most ${MAX_DASHBOARD_DAYS} days`,
    path: ["from"],
  });
export type DashboardQuery = z.infer<typeof dashboardQuerySchema>;

/** Counts over one span of time. Money in cents. */
export type PeriodFigures = {
  registered: number;
  /** Distinct drivers with a successful payment. */
  paidUsers: number;
  payments: number;
  revenueCents: number;
  blocksWon: number;
  messagesSent: number;
  messagesFailed: number;
};

export type DashboardFigures = {
  timeZone: string;
  today: string;
  from: string;
  to: string;
  /** Every driver account (the registered-user database). */
  drivers: number;
  /** Drivers whose system is on right now. */
  active: number;
  /** Drivers with a confirmed phone whose delivery account is not connected, and how many of them still have service time. */
  disconnected: number;
  disconnectedWithService: number;
  todayFigures: PeriodFigures;
  rangeFigures: PeriodFigures;
};

/** One value per day of the range, in the order of `days`. */
export type DashboardSeries = {
  timeZone: string;
  days: string[];
  signups: number[];
  payments: number[];
  revenueCents: number[];
  blocksWon: number[];
  messagesSent: number[];
  messagesFailed: number[];
};
