import { and, count, eq, gte, inArray, lte, sql } from "drizzle-orm";
import {
  type DashboardFigures,
  type DashboardQuery,
  type DashboardSeries,
  DEFAULT_DASHBOARD_DAYS,
  dayMinus,
  daysBetween,
  type PeriodFigures,
} from "../../shared/admin-dashboard";
import { calendarDay, dayEnd, dayStart } from "../../shared/audience";
import { namedFields } from "../db/batch-fields";
import type { Db } from "../db/client";
import { campaignMessages, offers, payments, users } from "../db/schema";

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

/** The range asked for, with the last 30 days (today included) when dates are missing. */
export function resolveRange(q: DashboardQuery, now: number): { today: string; from: string; to: string } {
  const today = calendarDay(now, q.timeZone);
  const to = q.to ?? (q.from && q.from > today ? q.from : today);
  const from = q.from ?? dayMinus(to, DEFAULT_DASHBOARD_DAYS - 1);
  return { today, from, to };
}

function periodStatements(db: Db, { start, end }: Span) {
  return [
    db
      .select({ n: count() })
      .from(users)
      .where(and(isDriver, gte(users.createdAt, start), lte(users.createdAt, end))),
    db
      .select(
        namedFields({
          payments: count(),
          // A driver's first payment in the span is one whose previous payment settled before it (the payer chain).
          paidUsers: sql<number>`coalesce(sum(${payments.prevSettledAt} IS NULL OR ${payments.prevSettledAt} < ${start}), 0)`,
          revenueCents: sql<number>`coalesce(sum(${payments.amountCents} - ${payments.refundedCents}), 0)`,
        }),
      )
      .from(payments)
      .where(and(inArray(payments.status, [...PAID]), gte(payments.settledAt, start), lte(payments.settledAt, end))),
    db
      .select({ n: count() })
      .from(offers)
      .where(and(eq(offers.status, "won"), gte(offers.createdAt, start), lte(offers.createdAt, end))),
    db
      .select({ status: campaignMessages.status, n: count() })
      .from(campaignMessages)
      .where(and(inArray(campaignMessages.status, [...SENT, "failed"]), gte(campaignMessages.updatedAt, start), lte(campaignMessages.updatedAt, end)))
      .groupBy(campaignMessages.status),
  ] as const;
}

type PeriodResults = [{ n: number }[], { payments: number; paidUsers: number; revenueCents: number }[], { n: number }[], { status: string; n: number }[]];

function toPeriod([registered, paid, won, messages]: PeriodResults): PeriodFigures {
  const messagesOf = (statuses: readonly string[]) => messages.filter((m) => statuses.includes(m.status)).reduce((sum, m) => sum + m.n, 0);
  return {
    registered: registered[0]?.n ?? 0,
    paidUsers: paid[0]?.paidUsers ?? 0,
    payments: paid[0]?.payments ?? 0,
    revenueCents: paid[0]?.revenueCents ?? 0,
    blocksWon: won[0]?.n ?? 0,
    messagesSent: messagesOf(SENT),
    messagesFailed: messagesOf(["failed"]),
  };
}

/** Today's figures and the range's, plus the live counts, in one round trip to D1. */
export async function dashboardFigures(db: Db, q: DashboardQuery, now = Date.now()): Promise<DashboardFigures> {
  const { today, from, to } = resolveRange(q, now);
  const todaySpan = { start: dayStart(today, q.timeZone), end: dayEnd(today, q.timeZone) };
  const rangeSpan = { start: dayStart(from, q.timeZone), end: dayEnd(to, q.timeZone) };
  const [drivers, active, disconnected, ...periods] = await db.batch([
    db.select({ n: count() }).from(users).where(isDriver),
    db
      .select({ n: count() })
      .from(users)
      .where(and(isDriver, eq(users.status, "start"))),
    db
      .select(namedFields({ n: count(), withService: sql<number>`coalesce(sum(${users.expirationAt} > ${now}), 0)` }))
      .from(users)
      .where(and(eq(users.isAdmin, false), eq(users.accountConnected, false), eq(users.phoneVerified, true))),
    ...periodStatements(db, todaySpan),
    ...periodStatements(db, rangeSpan),
  ]);
  return {
    timeZone: q.timeZone,
    today,
    from,
    to,
    drivers: drivers[0]?.n ?? 0,
    active: active[0]?.n ?? 0,
    disconnected: disconnected[0]?.n ?? 0,
    disconnectedWithService: disconnected[0]?.withService ?? 0,
    todayFigures: toPeriod(periods.slice(0, 4) as unknown as PeriodResults),
    rangeFigures: toPeriod(periods.slice(4, 8) as unknown as PeriodResults),
  };
}

/**
 * Per-day values over the range. The days' bounds travel as one JSON parameter; each day is an
 * index range scan of its own (a correlated subquery per day), so the cost follows the rows in
 * the range, not the table.
 */
export async function dashboardSeries(db: Db, q: DashboardQuery, now = Date.now()): Promise<DashboardSeries> {
  const { from, to } = resolveRange(q, now);
  const days = daysBetween(from, to);
  const bounds = JSON.stringify(days.map((d) => [dayStart(d, q.timeZone), dayEnd(d, q.timeZone)]));
  const dayStartOf = sql`json_extract(d.value, '$[0]')`;
  const dayEndOf = sql`json_extract(d.value, '$[1]')`;
  const within = (column: typeof users.createdAt | typeof payments.settledAt | typeof offers.createdAt | typeof campaignMessages.updatedAt) =>
    sql`${column} >= ${dayStartOf} AND ${column} <= ${dayEndOf}`;
  type Row = { signups: number; payments: number; revenueCents: number; blocksWon: number; messagesSent: number; messagesFailed: number };
  const rows = await db.all<Row>(sql`
    SELECT
      (SELECT count(*) FROM ${users} WHERE ${users.app} IN ('flex', 'spark') AND ${users.isAdmin} = 0 AND ${within(users.createdAt)}) AS signups,
      (SELECT count(*) FROM ${payments} WHERE ${payments.status} IN ('successful', 'refunded') AND ${within(payments.settledAt)}) AS payments,
      (SELECT coalesce(sum(${payments.amountCents} - ${payments.refundedCents}), 0) FROM ${payments}
        WHERE ${payments.status} IN ('successful', 'refunded') AND ${within(payments.settledAt)}) AS revenueCents,
      (SELECT count(*) FROM ${offers} WHERE ${offers.status} = 'won' AND ${within(offers.createdAt)}) AS blocksWon,
      (SELECT count(*) FROM ${campaignMessages} WHERE ${campaignMessages.status} IN ('sent', 'delivered') AND ${within(campaignMessages.updatedAt)}) AS messagesSent,
      (SELECT count(*) FROM ${campaignMessages} WHERE ${campaignMessages.status} = 'failed' AND ${within(campaignMessages.updatedAt)}) AS messagesFailed
    FROM json_each(${bounds}) d
    ORDER BY d.key`);
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
