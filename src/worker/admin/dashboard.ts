import { and, count, eq, gt, gte, inArray, lte, sql } from "drizzle-orm";
import {
  type DashboardFigures,
  type DashboardQuery,
  type DashboardSeries,
  DEFAULT_DASHBOARD_DAYS,
  dayMinus,
  daysBetween,
  type PeriodFigures,
} from "../../shared/admin-dashboard";
import { calendarDay, dayBounds, dayEnd, dayStart } from "../../shared/audience";
import { namedFields } from "../db/batch-fields";
import type { Db } from "../db/client";
import { campaignMessages, dashboardCache, offers, payments, users, userTallies } from "../db/schema";

/**
 * The admin dashboard's figures and charts (docs/admin.md), every number counted in D1. Days are
 * the admin's calendar days: each one runs from the first to the last millisecond of that date in
 * their IANA zone (23 or 25 hours across a daylight-saving change), so "today" at 00:30 in Miami
 * is not yet "today" in UTC and a range is exact on both ends.
 *
 * What counts where:
 * - drivers: accounts that are not administrators (both apps);
 * - registered: an account created in the span; paid: a payment that succeeded (settled) in it,
 *   refunded since or not;
 * - revenue: the amounts of those payments less what was refunded of them; blocks won: offers
 *   recorded as won in it;
 * - messages: campaign messages whose last change of state (the send, or its delivery receipt
 *   seconds later) fell in it, as sent (sent or delivered) or failed.
 */

// Every driver, through the (app, …) indexes: naming both apps lets SQLite use them.
const isDriver = and(inArray(users.app, ["flex", "spark"]), eq(users.isAdmin, false));
const SENT = ["sent", "delivered"] as const;
// A refunded payment was paid all the same; its refund comes off the revenue.
const PAID = ["successful", "refunded"] as const;

type Span = { start: number; end: number };

/**
 * Days already over only change by late news (a refund, a delivery receipt), so their figures are
 * computed once and kept this long (dashboard_cache); today is always counted live. A change to a
 * past day shows within this time.
 */
export const PAST_DAYS_TTL_MS = 10 * 60_000;

/** The range asked for, with the last 30 days (today included) when dates are missing. */
export function resolveRange(q: DashboardQuery, now: number): { today: string; from: string; to: string } {
  const today = calendarDay(now, q.timeZone);
  const to = q.to ?? (q.from && q.from > today ? q.from : today);
  const from = q.from ?? dayMinus(to, DEFAULT_DASHBOARD_DAYS - 1);
  return { today, from, to };
}

/**
 * The statements counting one span. `payersSince`: a payment counts its driver as a payer when the
 * driver's previous payment settled before this instant (the payer chain) — the span's start, or
 * an earlier range start when the span is the live end of a longer range.
 */
function periodStatements(db: Db, { start, end }: Span, payersSince: number[]) {
  const payers = Object.fromEntries(
    payersSince.map((since, i) => [`paidUsers${i}`, sql<number>`coalesce(sum(${payments.prevSettledAt} IS NULL OR ${payments.prevSettledAt} < ${since}), 0)`]),
  );
  return [
    db
      .select({ n: count() })
      .from(users)
      .where(and(isDriver, gte(users.createdAt, start), lte(users.createdAt, end))),
    db
      .select(namedFields({ payments: count(), revenueCents: sql<number>`coalesce(sum(${payments.amountCents} - ${payments.refundedCents}), 0)`, ...payers }))
      .from(payments)
      .where(and(inArray(payments.status, [...PAID]), gte(payments.settledAt, start), lte(payments.settledAt, end))),
    db
      .select({ n: count() })
      .from(offers)
      .where(and(gte(offers.createdAt, start), lte(offers.createdAt, end))),
    db
      .select({ status: campaignMessages.status, n: count() })
      .from(campaignMessages)
      .where(and(inArray(campaignMessages.status, [...SENT, "failed"]), gte(campaignMessages.updatedAt, start), lte(campaignMessages.updatedAt, end)))
      .groupBy(campaignMessages.status),
  ] as const;
}

type PeriodResults = [{ n: number }[], Record<string, number>[], { n: number }[], { status: string; n: number }[]];

/** The figures of one span, with the payers counted since the `payers`-th instant given. */
function toPeriod([registered, paid, won, messages]: PeriodResults, payers = 0): PeriodFigures {
  const messagesOf = (statuses: readonly string[]) => messages.filter((m) => statuses.includes(m.status)).reduce((sum, m) => sum + m.n, 0);
  return {
    registered: registered[0]?.n ?? 0,
    paidUsers: paid[0]?.[`paidUsers${payers}`] ?? 0,
    payments: paid[0]?.payments ?? 0,
    revenueCents: paid[0]?.revenueCents ?? 0,
    blocksWon: won[0]?.n ?? 0,
    messagesSent: messagesOf(SENT),
    messagesFailed: messagesOf(["failed"]),
  };
}

const EMPTY: PeriodFigures = { registered: 0, paidUsers: 0, payments: 0, revenueCents: 0, blocksWon: 0, messagesSent: 0, messagesFailed: 0 };
const add = (a: PeriodFigures, b: PeriodFigures): PeriodFigures => ({
  registered: a.registered + b.registered,
  paidUsers: a.paidUsers + b.paidUsers,
  payments: a.payments + b.payments,
  revenueCents: a.revenueCents + b.revenueCents,
  blocksWon: a.blocksWon + b.blocksWon,
  messagesSent: a.messagesSent + b.messagesSent,
  messagesFailed: a.messagesFailed + b.messagesFailed,
});

function cacheLookup(db: Db, key: string, now: number) {
  return db
    .select({ value: dashboardCache.value })
    .from(dashboardCache)
    .where(and(eq(dashboardCache.key, key), gt(dashboardCache.expiresAt, now)));
}

function cacheStore(db: Db, key: string, value: unknown, now: number) {
  return db
    .insert(dashboardCache)
    .values({ key, value, expiresAt: now + PAST_DAYS_TTL_MS })
    .onConflictDoUpdate({ target: dashboardCache.key, set: { value, expiresAt: now + PAST_DAYS_TTL_MS } });
}

/** Drops the figures kept past their time (the cron's housekeeping). */
export async function pruneDashboardCache(db: Db, now = Date.now()) {
  await db.delete(dashboardCache).where(lte(dashboardCache.expiresAt, now));
}

/**
 * Today's figures and the range's, plus the live counts. The range is its days already over (kept
 * for PAST_DAYS_TTL_MS) plus its days from today on, counted live, where a driver counts as a payer
 * only if their previous payment came before the range. One round trip when the past days are
 * kept and the range ends today.
 */
export async function dashboardFigures(db: Db, q: DashboardQuery, now = Date.now()): Promise<DashboardFigures> {
  const { today, from, to } = resolveRange(q, now);
  const todaySpan = { start: dayStart(today, q.timeZone), end: dayEnd(today, q.timeZone) };
  const rangeSpan = { start: dayStart(from, q.timeZone), end: dayEnd(to, q.timeZone) };
  // The range's days already over (kept), and its days from today on (counted live).
  const past = rangeSpan.start < todaySpan.start ? { start: rangeSpan.start, end: Math.min(rangeSpan.end, todaySpan.start - 1) } : null;
  const live = rangeSpan.end >= todaySpan.start ? { start: Math.max(rangeSpan.start, todaySpan.start), end: rangeSpan.end } : null;
  // Usually the live part is today itself: its counts are today's, with the payers counted from the range's start.
  const liveIsToday = live !== null && live.start === todaySpan.start && live.end === todaySpan.end;
  const pastKey = past && `figures:${past.start}:${past.end}`;
  // The live counts read the tallies (a few rows kept by triggers), not every account; only "still
  // has service" depends on the time, an index range of the disconnected ones.
  const [tallies, withService, ...rest] = await db.batch([
    db
      .select(
        namedFields({
          drivers: sql<number>`coalesce(sum(${userTallies.n}), 0)`,
          active: sql<number>`coalesce(sum(CASE WHEN ${userTallies.status} = 'start' THEN ${userTallies.n} END), 0)`,
          disconnected: sql<number>`coalesce(sum(CASE WHEN ${userTallies.accountConnected} = 0 AND ${userTallies.phoneVerified} = 1 THEN ${userTallies.n} END), 0)`,
        }),
      )
      .from(userTallies)
      .where(eq(userTallies.isAdmin, false)),
    db
      .select({ n: count() })
      .from(users)
      .where(and(eq(users.isAdmin, false), eq(users.accountConnected, false), eq(users.phoneVerified, true), gt(users.expirationAt, now))),
    ...periodStatements(db, todaySpan, [todaySpan.start, rangeSpan.start]),
    cacheLookup(db, pastKey ?? "", now),
  ]);
  const todayResults = rest.slice(0, 4) as unknown as PeriodResults;
  const kept = (rest[4] as { value: unknown }[])[0]?.value as PeriodFigures | undefined;
  const [pastFigures, liveFigures] = await Promise.all([
    (async () => {
      if (!past || !pastKey) return EMPTY;
      if (kept) return kept;
      const counted = toPeriod((await db.batch(periodStatements(db, past, [past.start]))) as unknown as PeriodResults);
      await cacheStore(db, pastKey, counted, now);
      return counted;
    })(),
    (async () => {
      if (!live) return EMPTY;
      if (liveIsToday) return toPeriod(todayResults, 1);
      return toPeriod((await db.batch(periodStatements(db, live, [rangeSpan.start]))) as unknown as PeriodResults);
    })(),
  ]);
  return {
    timeZone: q.timeZone,
    today,
    from,
    to,
    drivers: tallies[0]?.drivers ?? 0,
    active: tallies[0]?.active ?? 0,
    disconnected: tallies[0]?.disconnected ?? 0,
    disconnectedWithService: withService[0]?.n ?? 0,
    todayFigures: toPeriod(todayResults, 0),
    rangeFigures: add(pastFigures, liveFigures),
  };
}

type SeriesRow = { signups: number; payments: number; revenueCents: number; blocksWon: number; messagesSent: number; messagesFailed: number };

/** One row per day: each day an index range scan of its own (a correlated subquery), bounds as one JSON parameter. */
function seriesQuery(db: Db, bounds: [number, number][]) {
  const dayStartOf = sql`json_extract(d.value, '$[0]')`;
  const dayEndOf = sql`json_extract(d.value, '$[1]')`;
  const within = (column: typeof users.createdAt | typeof payments.settledAt | typeof offers.createdAt | typeof campaignMessages.updatedAt) =>
    sql`${column} >= ${dayStartOf} AND ${column} <= ${dayEndOf}`;
  return db.all<SeriesRow>(sql`
    SELECT
      (SELECT count(*) FROM ${users} WHERE ${users.app} IN ('flex', 'spark') AND ${users.isAdmin} = 0 AND ${within(users.createdAt)}) AS signups,
      (SELECT count(*) FROM ${payments} WHERE ${payments.status} IN ('successful', 'refunded') AND ${within(payments.settledAt)}) AS payments,
      (SELECT coalesce(sum(${payments.amountCents} - ${payments.refundedCents}), 0) FROM ${payments}
        WHERE ${payments.status} IN ('successful', 'refunded') AND ${within(payments.settledAt)}) AS revenueCents,
      (SELECT count(*) FROM ${offers} WHERE ${within(offers.createdAt)}) AS blocksWon,
      (SELECT count(*) FROM ${campaignMessages} WHERE ${campaignMessages.status} IN ('sent', 'delivered') AND ${within(campaignMessages.updatedAt)}) AS messagesSent,
      (SELECT count(*) FROM ${campaignMessages} WHERE ${campaignMessages.status} = 'failed' AND ${within(campaignMessages.updatedAt)}) AS messagesFailed
    FROM json_each(${JSON.stringify(bounds)}) d
    ORDER BY d.key`);
}

/** Per-day values over the range: the days already over kept like the figures', today (and after) counted live. */
export async function dashboardSeries(db: Db, q: DashboardQuery, now = Date.now()): Promise<DashboardSeries> {
  const { today, from, to } = resolveRange(q, now);
  const days = daysBetween(from, to);
  const bounds = dayBounds(days, q.timeZone);
  const pastCount = days.filter((d) => d < today).length;
  const pastBounds = bounds.slice(0, pastCount);
  const liveBounds = bounds.slice(pastCount);
  const pastKey = pastBounds.length > 0 ? `series:${pastBounds[0]![0]}:${pastBounds.at(-1)![1]}` : null;
  const [pastRows, liveRows] = await Promise.all([
    (async () => {
      if (!pastKey) return [];
      const kept = (await cacheLookup(db, pastKey, now))[0]?.value as SeriesRow[] | undefined;
      if (kept) return kept;
      const counted = await seriesQuery(db, pastBounds);
      await cacheStore(db, pastKey, counted, now);
      return counted;
    })(),
    liveBounds.length > 0 ? seriesQuery(db, liveBounds) : Promise.resolve([]),
  ]);
  const rows = [...pastRows, ...liveRows];
  return {
    timeZone: q.timeZone,
    days,
    signups: rows.map((r) => r.signups),
    payments: rows.map((r) => r.payments),
    revenueCents: rows.map((r) => r.revenueCents),
    blocksWon: rows.map((r) => r.blocksWon),
    messagesSent: rows.map((r) => r.messagesSent),
    messagesFailed: rows.map((r) => r.messagesFailed),
  };
}
