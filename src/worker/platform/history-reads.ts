/**
 * The driver's offer history as its readers see it (history-client.ts): the dashboard's offers
 * page, one offer, the calendar's blocks, the offers seen since a time (the export), the insights
 * and the what-if. Read in the capture engine's object, beside the history (offer-history.ts), so
 * a month of offers never crosses an RPC; capture-session.ts composes these reads with the engine.
 * From the engine they take only the filters in force and the forfeits waiting for a lockout's end.
 */
import type { DriverFilters } from "../../shared/driver-filters";
import { EARNINGS_WEEKS, type HistoryOffer, type InsightPeriod, type InsightsReport, type WhatIfResult } from "../../shared/insights";
import type { WhatIfRequest } from "../../shared/insights-requests";
import { insightsReport, whatIf } from "./history-insights";
import { HISTORY_READ_LIMIT, type OfferHistory, type OfferStatus } from "./offer-history";

const DAY_MS = 86_400_000;
/** The what-if keeps the period it read this long, while nothing new is recorded. */
const REPLAY_ROWS_TTL_MS = 60_000;

/** A history row, with when its forfeit was asked if it waits for a lockout's end (block-actions.ts). */
export type WithForfeitQueued = HistoryOffer & { forfeitQueuedAt: number | null };
export type OffersPageData = { counts: Record<OfferStatus, number>; rows: WithForfeitQueued[]; filters: DriverFilters | null };

/** What the reads take from the engine (capture-engine.ts). */
export type HistoryReadsEngine = {
  /** Ties the object to its driver on the first call; a call for anyone else throws. */
  bind(userId: number): void;
  filters(): Promise<DriverFilters | null>;
  forfeitQueuedAt(id: number): number | null;
};

export class HistoryReads {
  /** The what-if's last period read (replayRows). */
  private replayCache: { days: InsightPeriod; version: number; at: number; rows: HistoryOffer[] } | null = null;

  constructor(
    private readonly history: OfferHistory,
    private readonly engine: HistoryReadsEngine,
  ) {}

  /** A page of the offers seen, newest first, with the counts per status and the filters in force. */
  async offersPage(userId: number, query: { page: number; pageSize: number; status?: OfferStatus }): Promise<OffersPageData> {
    this.engine.bind(userId);
    const filters = await this.engine.filters();
    const rows = this.history.page(query.page, query.pageSize, query.status).map((r) => this.withForfeitQueued(r));
    return { counts: this.history.counts(), rows, filters };
  }

  /** One offer of the history, or null. */
  offer(userId: number, id: number): HistoryOffer | null {
    this.engine.bind(userId);
    return this.history.byId(id);
  }

  /** Won blocks not given back that start in [from, to), by start (the calendar). */
  blocksStarting(userId: number, from: number, to: number, limit: number): WithForfeitQueued[] {
    this.engine.bind(userId);
    return this.history
      .wonStarting(from, to, limit + 1_000)
      .filter((o) => o.forfeitedAt === null)
      .slice(0, limit)
      .map((r) => this.withForfeitQueued(r));
  }

  /** Offers shown since `from`, oldest first, at most `limit` (the export, the tests). */
  offersSeenSince(userId: number, from: number, limit: number): HistoryOffer[] {
    this.engine.bind(userId);
    return this.history.seenSince(from, limit);
  }

  /** The driver's insights (history-insights.ts): the offers of the period, with the won blocks of the earnings' weeks. */
  async insights(userId: number, days: InsightPeriod): Promise<InsightsReport> {
    this.engine.bind(userId);
    const now = Date.now();
    const filters = await this.engine.filters();
    return insightsReport(this.insightRows(days, now), filters, days, now);
  }

  /** The what-if: the period's offers replayed under other filters (src/shared/replay.ts); `tookMs` counts the read too. */
  whatIf(userId: number, request: WhatIfRequest): WhatIfResult {
    this.engine.bind(userId);
    const now = Date.now();
    const started = performance.now();
    const result = whatIf(this.replayRows(request.days, now), request, now);
    return { ...result, tookMs: Math.round((performance.now() - started) * 10) / 10 };
  }

  /** A row with when its forfeit was asked, if it waits for a lockout's end. */
  private withForfeitQueued(row: HistoryOffer): WithForfeitQueued {
    return { ...row, forfeitQueuedAt: this.engine.forfeitQueuedAt(row.id) };
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
    const rows = this.history.forReplay(from, HISTORY_READ_LIMIT);
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
