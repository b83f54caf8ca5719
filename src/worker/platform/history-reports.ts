/**
 * The driver's insights and what-if (src/worker/driver/insights.ts), read from their offer history
 * beside it in the capture engine's object (capture-session.ts).
 */
import type { DriverFilters } from "../../shared/driver-filters";
import { EARNINGS_WEEKS, type HistoryOffer, type InsightPeriod, type InsightsReport, type WhatIfResult } from "../../shared/insights";
import type { WhatIfRequest } from "../../shared/insights-requests";
import { insightsReport, whatIf } from "../driver/insights";
import { HISTORY_READ_LIMIT, type OfferHistory } from "./offer-history";

const DAY_MS = 86_400_000;
/** The what-if keeps the period it read this long, while nothing new is recorded. */
const REPLAY_ROWS_TTL_MS = 60_000;

export class HistoryReports {
  /** The what-if's last period read (replayRows). */
  private replayCache: { days: InsightPeriod; version: number; at: number; rows: HistoryOffer[] } | null = null;

  constructor(private readonly history: OfferHistory) {}

  /** The offers of the period, with the won blocks of the earnings' weeks. */
  insights(filters: DriverFilters | null, days: InsightPeriod, now: number): InsightsReport {
    return insightsReport(this.insightRows(days, now), filters, days, now);
  }

  /** The period's offers replayed under other filters; `tookMs` counts the read too. */
  whatIf(request: WhatIfRequest, now: number): WhatIfResult {
    const started = performance.now();
    const result = whatIf(this.replayRows(request.days, now), request, now);
    return { ...result, tookMs: Math.round((performance.now() - started) * 10) / 10 };
  }

  /**
   * The period's offers for the what-if. A driver tries filter after filter within a minute or
   * two, so the month read once (most of a what-if's time) is kept for a minute, while nothing new
   * is recorded; the period still ends at each call's `now`.
   */
  private replayRows(days: InsightPeriod, now: number): HistoryOffer[] {
    const version = this.history.version;
    const kept = this.replayCache;
    const from = now - days * DAY_MS;
    if (kept && kept.days === days && kept.version === version && now - kept.at < REPLAY_ROWS_TTL_MS) {
      return kept.rows[0] && kept.rows[0].seenAt >= from ? kept.rows : kept.rows.filter((o) => o.seenAt >= from);
    }
    const rows = this.history.seenSince(from, HISTORY_READ_LIMIT, { reasons: false });
    this.replayCache = { days, version, at: now, rows };
    return rows;
  }

  /** Offers seen in the period, and the won blocks starting in the earnings' weeks (a block is won days before it starts). */
  private insightRows(days: InsightPeriod, now: number): HistoryOffer[] {
    const seen = this.history.seenSince(now - days * DAY_MS);
    const ids = new Set(seen.map((o) => o.id));
    const won = this.history.wonStarting(now - (EARNINGS_WEEKS + 1) * 7 * DAY_MS, now + 14 * DAY_MS).filter((o) => !ids.has(o.id));
    return [...won, ...seen];
  }
}
