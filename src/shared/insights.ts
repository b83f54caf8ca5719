/**
 * What the insights page (/flex/insights) asks for and gets back: the driver's earnings per week,
 * the market their engine saw, and the what-if replay of their history under other filters. The
 * Worker computes every figure from the offers the driver's capture engine recorded; the SPA only
 * words and draws them (sentences are data, worded in the reader's language). Its requests' schemas
 * are in insights-requests.ts, so the page that draws these figures does not carry zod.
 */
import type { SkipReason } from "./accept-plan";
import type { Weekday } from "./zoned-time";

/** One offer the engine was shown, as its driver's history keeps it. */
export type HistoryOffer = {
  id: number;
  platformOfferId: string;
  stationId: string;
  stationName: string;
  timeZone: string;
  status: "won" | "disliked" | "gone";
  /** Why a disliked offer was not taken (empty otherwise). */
  reasons: SkipReason[];
  payCents: number;
  startsAt: number;
  endsAt: number;
  blockId: string | null;
  forfeitedAt: number | null;
  arrivedAt: number | null;
  /** When the engine judged it (the buffer counts from then); offers of one poll share it. */
  seenAt: number;
};

/** The periods the market and the what-if look back over. */
export const INSIGHT_PERIODS = [7, 30] as const;
export type InsightPeriod = (typeof INSIGHT_PERIODS)[number];
/** The period the page opens on. */
export const FIRST_INSIGHT_PERIOD: InsightPeriod = 30;
/** Weeks of earnings shown. */
export const EARNINGS_WEEKS = 8;

/** A station-local week (Monday first): blocks won and kept, and those given back. */
export type EarningsWeek = {
  /** The Monday, "YYYY-MM-DD", in the stations' own calendar. */
  weekStart: string;
  blocks: number;
  minutes: number;
  payCents: number;
  /** Pay per hour over the week's blocks; null without blocks. */
  hourlyCents: number | null;
  forfeits: number;
};

/** Offers shown in a slice of the market, with what became of them and the middle of their pay. */
export type MarketSlice = {
  shown: number;
  won: number;
  gone: number;
  disliked: number;
  medianHourlyCents: number | null;
  medianPayCents: number | null;
};

export type MarketReport = {
  days: InsightPeriod;
  totals: MarketSlice;
  byStation: (MarketSlice & { stationId: string; stationName: string })[];
  /** Station-local hour of the block's start, 0–23, every hour present. */
  byHour: (MarketSlice & { hour: number })[];
  /** Station-local weekday of the block's start, Monday first, every day present. */
  byWeekday: (MarketSlice & { weekday: Weekday })[];
  /** Disliked offers per reason (an offer counts once for each of its reasons), most first. */
  reasons: { reason: SkipReason; count: number }[];
};

/**
 * A computed finding, worded by the SPA; the largest effect first. Findings are about the offers of
 * the last 7 days, judged again under the driver's current filters at the instant each was seen,
 * and told only about 5 offers or more (src/worker/platform/history-insights.ts).
 */
export type Finding =
  | { kind: "under_hourly"; stationName: string; count: number; medianHourlyCents: number; minHourlyCents: number }
  | { kind: "under_pay"; stationName: string; count: number; medianPayCents: number; minPayCents: number }
  | { kind: "outside_windows"; count: number; medianHourlyCents: number }
  | { kind: "buffer"; count: number; bufferMinutes: number }
  | { kind: "gone"; count: number; share: number }
  | { kind: "best_hour"; stationName: string; hour: number; medianHourlyCents: number };

export type InsightsReport = {
  now: number;
  /** EARNINGS_WEEKS weeks, oldest first, the current one last. */
  earnings: EarningsWeek[];
  market: MarketReport;
  /** "This week" findings, best first; empty when there is too little to say. */
  findings: Finding[];
};

export type ReplayTotals = { blocks: number; minutes: number; payCents: number };

export type WhatIfResult = {
  days: InsightPeriod;
  /** Offers shown in the period. */
  offers: number;
  /** What the engine took and kept (won, not given back). */
  actual: ReplayTotals;
  /** What it would have asked for and kept under the filters asked about. */
  replay: ReplayTotals & {
    /** Offers it would have taken that it passed on: someone else might have taken them first. */
    newlyTaken: number;
    /** Offers it would have asked for that were taken by someone else before its accept. */
    gone: number;
  };
  /**
   * The what-if's milliseconds on the Worker (performance.now(); deployed on Cloudflare, timers
   * stand still between I/O, so it reads 0 there; `wrangler dev` measures it).
   */
  tookMs: number;
};
