/**
 * The figures of the insights page (/flex/insights), computed from the offers a driver's engine
 * recorded (src/shared/insights.ts has the shapes): earnings per week, the market it saw, findings
 * worth telling, and the what-if replay under other filters (src/shared/replay.ts). Pure: the
 * caller reads the history and the filters, and passes `now`.
 *
 * Times of day and weekdays are the station's, read at the block's start in its own zone, as the
 * engine judges them. Pay per hour is pay × 60 / the block's real minutes, in cents, rounded.
 */

import type { SkipReason } from "../../shared/accept-plan";
import { type DriverFilters, toCaptureFilters } from "../../shared/driver-filters";
import {
  EARNINGS_WEEKS,
  type EarningsWeek,
  type Finding,
  type HistoryOffer,
  type InsightPeriod,
  type InsightsReport,
  type MarketReport,
  type MarketSlice,
  type ReplayTotals,
  type WhatIfResult,
} from "../../shared/insights";
import type { WhatIfRequest } from "../../shared/insights-requests";
import { evaluateOffer } from "../../shared/offer-filter";
import { replayHistory } from "../../shared/replay";
import { type LocalReading, localReading, WEEKDAYS } from "../../shared/zoned-time";

const MINUTE = 60_000;
const DAY = 86_400_000;
/** The findings look back this far ("this week"). */
export const FINDINGS_DAYS = 7;
/** A finding is told only about at least this many offers. */
export const MIN_FINDING_OFFERS = 5;
/** Every reason, in the order a tie is listed. */
const REASON_ORDER: readonly SkipReason[] = ["station", "pay", "hourly", "buffer", "day", "window", "duration", "overlap", "daily_cap"];

const minutesOf = (o: HistoryOffer) => (o.endsAt - o.startsAt) / MINUTE;
const hourlyOf = (o: HistoryOffer) => Math.round((o.payCents * 60) / Math.max(1, minutesOf(o)));
/** Offers seen in the `days` days up to `now`. */
const inPeriod = (rows: readonly HistoryOffer[], days: number, now: number) => rows.filter((o) => o.seenAt > now - days * DAY && o.seenAt <= now);
/** Won and not given back. */
const kept = (o: HistoryOffer) => o.status === "won" && o.forfeitedAt === null;

/** The block's start on its station's clocks (a zone the runtime does not know is read in UTC). */
function startReading(o: HistoryOffer): LocalReading {
  try {
    return localReading(o.startsAt, o.timeZone);
  } catch {
    return localReading(o.startsAt, "UTC");
  }
}

/** The middle value, the mean of the two middle ones rounded for an even count; null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}

/** The Monday of the week holding a local date, "YYYY-MM-DD". */
function mondayOf(r: LocalReading): string {
  return new Date(Date.UTC(r.year, r.month - 1, r.day - WEEKDAYS.indexOf(r.weekday))).toISOString().slice(0, 10);
}

/** The zone most of the driver's offers were in: their weeks are counted to its calendar's today. */
function mainZone(rows: readonly HistoryOffer[]): string {
  const counts = new Map<string, number>();
  for (const o of rows) counts.set(o.timeZone, (counts.get(o.timeZone) ?? 0) + 1);
  let best = "UTC";
  let most = 0;
  for (const [zone, n] of counts) {
    if (n > most) [best, most] = [zone, n];
  }
  return best;
}

/**
 * The last EARNINGS_WEEKS weeks (Monday first), oldest first, up to the one holding `now` in the
 * zone most of the driver's offers were in. A won block counts in the week its start falls in on
 * its own station's calendar (blocks still to come in the current week included): blocks, minutes
 * and pay of the ones kept, and `forfeits`, the ones given back (their pay is not counted).
 */
export function earningsByWeek(rows: readonly HistoryOffer[], now: number): EarningsWeek[] {
  let today: LocalReading;
  try {
    today = localReading(now, mainZone(rows));
  } catch {
    today = localReading(now, "UTC");
  }
  const thisMonday = Date.parse(mondayOf(today));
  const weeks = new Map<string, EarningsWeek>();
  for (let i = EARNINGS_WEEKS - 1; i >= 0; i--) {
    const weekStart = new Date(thisMonday - i * 7 * DAY).toISOString().slice(0, 10);
    weeks.set(weekStart, { weekStart, blocks: 0, minutes: 0, payCents: 0, hourlyCents: null, forfeits: 0 });
  }
  for (const o of rows) {
    if (o.status !== "won") continue;
    const week = weeks.get(mondayOf(startReading(o)));
    if (!week) continue;
    if (o.forfeitedAt !== null) {
      week.forfeits++;
      continue;
    }
    week.blocks++;
    week.minutes += minutesOf(o);
    week.payCents += o.payCents;
  }
  for (const week of weeks.values()) week.hourlyCents = week.minutes > 0 ? Math.round((week.payCents * 60) / week.minutes) : null;
  return [...weeks.values()];
}

/** A slice being counted: its offers' pay per hour and pay, for the medians. */
type Tally = { shown: number; won: number; gone: number; disliked: number; hourly: number[]; pay: number[] };
const tally = (): Tally => ({ shown: 0, won: 0, gone: 0, disliked: 0, hourly: [], pay: [] });
function count(t: Tally, o: HistoryOffer, hourly: number) {
  t.shown++;
  t[o.status]++;
  t.hourly.push(hourly);
  t.pay.push(o.payCents);
}
const slice = ({ hourly, pay, ...counts }: Tally): MarketSlice => ({ ...counts, medianHourlyCents: median(hourly), medianPayCents: median(pay) });

/**
 * The offers seen in the last `days` days: in all, per station (most shown first), per hour of the
 * day and per weekday of the block's start on its station's clocks (every hour and day present),
 * with what became of them and the medians of their pay and pay per hour; and the reasons the
 * disliked ones were refused for, as recorded (most first).
 */
export function marketReport(rows: readonly HistoryOffer[], days: InsightPeriod, now: number): MarketReport {
  const totals = tally();
  const stations = new Map<string, { stationName: string; tally: Tally }>();
  const hours = Array.from({ length: 24 }, tally);
  const weekdays = WEEKDAYS.map(tally);
  const reasons = new Map<SkipReason, number>();
  for (const o of inPeriod(rows, days, now)) {
    const hourly = hourlyOf(o);
    const local = startReading(o);
    let station = stations.get(o.stationId);
    if (!station) {
      station = { stationName: o.stationName, tally: tally() };
      stations.set(o.stationId, station);
    }
    for (const t of [totals, station.tally, hours[Math.floor(local.minuteOfDay / 60)]!, weekdays[WEEKDAYS.indexOf(local.weekday)]!]) count(t, o, hourly);
    if (o.status === "disliked") for (const r of o.reasons) reasons.set(r, (reasons.get(r) ?? 0) + 1);
  }
  return {
    days,
    totals: slice(totals),
    byStation: [...stations.entries()]
      .map(([stationId, s]) => ({ stationId, stationName: s.stationName, ...slice(s.tally) }))
      .sort((a, b) => b.shown - a.shown || a.stationName.localeCompare(b.stationName)),
    byHour: hours.map((t, hour) => ({ hour, ...slice(t) })),
    byWeekday: weekdays.map((t, i) => ({ weekday: WEEKDAYS[i]!, ...slice(t) })),
    reasons: [...reasons.entries()]
      .map(([reason, n]) => ({ reason, count: n }))
      .sort((a, b) => b.count - a.count || REASON_ORDER.indexOf(a.reason) - REASON_ORDER.indexOf(b.reason)),
  };
}

/**
 * What is worth telling about the last FINDINGS_DAYS days, largest effect first. Each offer seen
 * then is judged again under the driver's current filters, at the instant it was seen: per
 * station, the offers under its minimum pay per hour or pay; offers outside the schedule; offers
 * too soon for the buffer; offers asked for that someone else took first; and, last, the station
 * and hour of the day whose offers paid the best per hour. A finding is told only about at least
 * MIN_FINDING_OFFERS offers. The effect is the pay of the offers it is about (the best hour, a tip
 * rather than a miss, comes after the others).
 */
export function findings(rows: readonly HistoryOffer[], filters: DriverFilters, now: number): Finding[] {
  const capture = toCaptureFilters(filters);
  const found: { finding: Finding; effect: number }[] = [];
  type Group = { stationName: string; hourly: number[]; pay: number[]; payCents: number };
  const group = (stationName = ""): Group => ({ stationName, hourly: [], pay: [], payCents: 0 });
  const push = (g: Group, o: HistoryOffer, hourly: number) => {
    g.hourly.push(hourly);
    g.pay.push(o.payCents);
    g.payCents += o.payCents;
  };
  const groupOf = <G extends Group>(map: Map<string, G>, key: string, make: () => G): G => {
    let g = map.get(key);
    if (!g) {
      g = make();
      map.set(key, g);
    }
    return g;
  };
  const underHourly = new Map<string, Group>();
  const underPay = new Map<string, Group>();
  const byStationHour = new Map<string, Group & { hour: number }>();
  const outside = group();
  const tooSoon = group();
  let asked = 0;
  let gone = 0;
  let gonePay = 0;

  for (const o of inPeriod(rows, FINDINGS_DAYS, now)) {
    if (o.status !== "disliked") asked++;
    if (o.status === "gone") {
      gone++;
      gonePay += o.payCents;
    }
    let reasons: SkipReason[];
    try {
      reasons = evaluateOffer(o, capture, o.seenAt).reasons;
    } catch {
      reasons = ["station"];
    }
    // Offers at stations the driver no longer searches say nothing about the current filters.
    if (reasons.includes("station")) continue;
    const hourly = hourlyOf(o);
    if (reasons.includes("hourly"))
      push(
        groupOf(underHourly, o.stationId, () => group(o.stationName)),
        o,
        hourly,
      );
    if (reasons.includes("pay"))
      push(
        groupOf(underPay, o.stationId, () => group(o.stationName)),
        o,
        hourly,
      );
    if (reasons.includes("day") || reasons.includes("window")) push(outside, o, hourly);
    if (reasons.includes("buffer")) push(tooSoon, o, hourly);
    const hour = Math.floor(startReading(o).minuteOfDay / 60);
    push(
      groupOf(byStationHour, `${o.stationId}\u0000${hour}`, () => ({ ...group(o.stationName), hour })),
      o,
      hourly,
    );
  }

  const stationMin = (stationId: string, field: "minHourlyCents" | "minPayCents") =>
    filters.stations.find((s) => s.id === stationId)?.[field] ?? filters[field];
  for (const [stationId, g] of underHourly) {
    if (g.hourly.length < MIN_FINDING_OFFERS) continue;
    found.push({
      finding: {
        kind: "under_hourly",
        stationName: g.stationName,
        count: g.hourly.length,
        medianHourlyCents: median(g.hourly)!,
        minHourlyCents: stationMin(stationId, "minHourlyCents"),
      },
      effect: g.payCents,
    });
  }
  for (const [stationId, g] of underPay) {
    if (g.pay.length < MIN_FINDING_OFFERS) continue;
    found.push({
      finding: {
        kind: "under_pay",
        stationName: g.stationName,
        count: g.pay.length,
        medianPayCents: median(g.pay)!,
        minPayCents: stationMin(stationId, "minPayCents"),
      },
      effect: g.payCents,
    });
  }
  if (outside.hourly.length >= MIN_FINDING_OFFERS) {
    found.push({ finding: { kind: "outside_windows", count: outside.hourly.length, medianHourlyCents: median(outside.hourly)! }, effect: outside.payCents });
  }
  if (tooSoon.hourly.length >= MIN_FINDING_OFFERS) {
    found.push({ finding: { kind: "buffer", count: tooSoon.hourly.length, bufferMinutes: filters.arrivalBufferMinutes }, effect: tooSoon.payCents });
  }
  if (gone >= MIN_FINDING_OFFERS) found.push({ finding: { kind: "gone", count: gone, share: gone / asked }, effect: gonePay });
  found.sort((a, b) => b.effect - a.effect);

  let best: { stationName: string; hour: number; medianHourlyCents: number } | null = null;
  for (const g of byStationHour.values()) {
    if (g.hourly.length < MIN_FINDING_OFFERS) continue;
    const m = median(g.hourly)!;
    if (!best || m > best.medianHourlyCents) best = { stationName: g.stationName, hour: g.hour, medianHourlyCents: m };
  }
  const list = found.map((f) => f.finding);
  if (best) list.push({ kind: "best_hour", ...best });
  return list;
}

/** The blocks won and kept (not given back) among these offers. */
function keptTotals(rows: readonly HistoryOffer[]): ReplayTotals {
  const totals: ReplayTotals = { blocks: 0, minutes: 0, payCents: 0 };
  for (const o of rows) {
    if (!kept(o)) continue;
    totals.blocks++;
    totals.minutes += minutesOf(o);
    totals.payCents += o.payCents;
  }
  return totals;
}

/**
 * The what-if: the offers seen in the last `request.days` days replayed under `request.filters`
 * (replayHistory), beside what the engine took and kept. `tookMs` is the time this took, by
 * performance.now() (on Cloudflare's network timers stand still between I/O, so it reads 0 there;
 * `wrangler dev` measures it).
 */
export function whatIf(rows: readonly HistoryOffer[], request: WhatIfRequest, now: number): WhatIfResult {
  const started = performance.now();
  const period = inPeriod(rows, request.days, now);
  const actual = keptTotals(period);
  const replay = replayHistory(period, request.filters, { decisions: false });
  return {
    days: request.days,
    offers: period.length,
    actual,
    replay: { ...replay.totals, newlyTaken: replay.newlyTaken, gone: replay.gone },
    tookMs: Math.round((performance.now() - started) * 10) / 10,
  };
}

/** The page's report: earnings per week, the market of the last `days` days, and this week's findings. */
export function insightsReport(rows: readonly HistoryOffer[], filters: DriverFilters | null, days: InsightPeriod, now: number): InsightsReport {
  return { now, earnings: earningsByWeek(rows, now), market: marketReport(rows, days, now), findings: filters ? findings(rows, filters, now) : [] };
}
