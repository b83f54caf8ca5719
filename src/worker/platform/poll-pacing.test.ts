/**
 * When the engine polls: the interval the environment sets, the minimum gap to the last poll, the
 * next poll (planned from the previous plan, jittered, after any back-off, at the expiry at the
 * latest), the wake of a paused engine, and the back-off after a failure.
 */
import { describe, expect, it } from "vitest";
import type { PlatformErrorKind } from "./platform";
import { backoffAfter, earliestPoll, type NextPollInput, nextPoll, pollIntervalMs, wakeWhilePaused } from "./poll-pacing";
import { SEARCH_LEAD_MS } from "./search-plan";

const NOW = 1_000_000_000;
const S = 1000;

describe("pollIntervalMs", () => {
  const rows: [string | undefined, number][] = [
    ["2000", 2000],
    ["300", 300],
    ["250", 250],
    ["249", 2000],
    ["0", 2000],
    ["-5", 2000],
    ["soon", 2000],
    ["", 2000],
    [undefined, 2000],
  ];
  for (const [setting, ms] of rows) {
    it(`${JSON.stringify(setting)} is ${ms} ms`, () => {
      expect(pollIntervalMs({ CAPTURE_POLL_INTERVAL_MS: setting } as Pick<Env, "CAPTURE_POLL_INTERVAL_MS">)).toBe(ms);
    });
  }
});

describe("earliestPoll", () => {
  const rows: { name: string; last: number | null; at: number }[] = [
    { name: "never polled: now", last: null, at: NOW },
    { name: "polled an interval ago: now", last: NOW - 2 * S, at: NOW },
    { name: "polled exactly 85 % of the interval ago: now", last: NOW - 1700, at: NOW },
    { name: "polled a second ago: 85 % of the interval after it", last: NOW - S, at: NOW + 700 },
    { name: "polled just now: 85 % of the interval from now", last: NOW, at: NOW + 1700 },
  ];
  for (const row of rows) {
    it(row.name, () => {
      expect(earliestPoll(row.last, 2 * S, NOW)).toBe(row.at);
    });
  }
});

describe("nextPoll", () => {
  const base: NextPollInput = {
    now: NOW,
    interval: 2 * S,
    plannedAt: null,
    lastPollAt: NOW - 100,
    backoff: { level: 0, until: 0 },
    expirationAt: null,
    random: 0.5,
  };
  const rows: { name: string; over: Partial<NextPollInput>; at: number }[] = [
    { name: "no plan yet: one interval after the last poll", over: {}, at: NOW - 100 + 2 * S },
    { name: "never polled nor planned: one interval from now", over: { lastPollAt: null }, at: NOW + 2 * S },
    { name: "planned: one interval after the plan, though the poll ran late", over: { plannedAt: NOW - 300 }, at: NOW - 300 + 2 * S },
    { name: "a plan an interval old or more is dropped for the last poll", over: { plannedAt: NOW - 2 * S }, at: NOW - 100 + 2 * S },
    { name: "jitter at its lowest: 5 % early", over: { random: 0 }, at: NOW - 100 + 1900 },
    { name: "jitter at its highest: 5 % late", over: { random: 0.999_999 }, at: Math.round(NOW - 100 + 2 * S * (1 + 0.999_998 * 0.05)) },
    { name: "never closer than 85 % of the interval to the last poll", over: { plannedAt: NOW - 1500, lastPollAt: NOW, random: 0 }, at: NOW + 1700 },
    { name: "not before the back-off ends", over: { backoff: { level: 3, until: NOW + 60 * S } }, at: NOW + 60 * S },
    { name: "at the expiry when service ends first", over: { expirationAt: NOW + 500 }, at: NOW + 500 },
    { name: "at the expiry even during a back-off", over: { backoff: { level: 3, until: NOW + 60 * S }, expirationAt: NOW + 10 * S }, at: NOW + 10 * S },
    { name: "an expiry already past is left to the alarm's own check", over: { expirationAt: NOW - S }, at: NOW - 100 + 2 * S },
    { name: "an expiry after the next poll changes nothing", over: { expirationAt: NOW + 60 * S }, at: NOW - 100 + 2 * S },
  ];
  for (const row of rows) {
    it(row.name, () => {
      expect(Math.round(nextPoll({ ...base, ...row.over }))).toBe(row.at);
    });
  }
});

describe("wakeWhilePaused", () => {
  const H = 3_600_000;
  const rows: { name: string; opensAt: number | null; expirationAt: number | null; at: number }[] = [
    { name: "the lead before the next window opens", opensAt: NOW + 2 * H, expirationAt: null, at: NOW + 2 * H - SEARCH_LEAD_MS },
    { name: "no window in the coming week: a day from now", opensAt: null, expirationAt: null, at: NOW + 24 * H },
    { name: "the expiry, when it comes first", opensAt: NOW + 2 * H, expirationAt: NOW + H, at: NOW + H },
    { name: "the window, when it comes before the expiry", opensAt: NOW + 2 * H, expirationAt: NOW + 3 * H, at: NOW + 2 * H - SEARCH_LEAD_MS },
    { name: "the expiry within a day, with no window", opensAt: null, expirationAt: NOW + 5 * H, at: NOW + 5 * H },
    { name: "a second from now at the soonest (a window opening within the lead)", opensAt: NOW + 60_000, expirationAt: null, at: NOW + S },
    { name: "a second from now at the soonest (an expiry past)", opensAt: null, expirationAt: NOW - H, at: NOW + S },
  ];
  for (const row of rows) {
    it(row.name, () => {
      expect(wakeWhilePaused(row.opensAt, row.expirationAt, NOW)).toBe(row.at);
    });
  }
});

describe("backoffAfter", () => {
  type Row = { name: string; level: number; kind: PlatformErrorKind; retryAfterMs?: number; next: number; waitMs: number };
  const rows: Row[] = [
    { name: "a first 5xx waits one interval", level: 0, kind: "unavailable", next: 1, waitMs: 2 * S },
    { name: "a second one waits two", level: 1, kind: "unavailable", next: 2, waitMs: 4 * S },
    { name: "a third one waits four", level: 2, kind: "unavailable", next: 3, waitMs: 8 * S },
    { name: "the wait stops growing at five minutes", level: 8, kind: "unavailable", next: 9, waitMs: 300 * S },
    { name: "the level stops at ten", level: 10, kind: "unavailable", next: 10, waitMs: 300 * S },
    { name: "a 429 waits what the platform asked, with a margin", level: 0, kind: "rate_limited", retryAfterMs: 5 * S, next: 1, waitMs: 5500 },
    { name: "a 429 asking less than the exponential wait waits the exponential one", level: 2, kind: "rate_limited", retryAfterMs: S, next: 3, waitMs: 8 * S },
    { name: "a 429 without Retry-After grows exponentially", level: 1, kind: "rate_limited", next: 2, waitMs: 4 * S },
    { name: "a 429 asking an hour waits five minutes at most", level: 0, kind: "rate_limited", retryAfterMs: 3_600 * S, next: 1, waitMs: 300 * S },
    { name: "Retry-After only counts on a 429", level: 0, kind: "unavailable", retryAfterMs: 60 * S, next: 1, waitMs: 2 * S },
    { name: "a rejected call backs off too", level: 0, kind: "rejected", next: 1, waitMs: 2 * S },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const failure = row.retryAfterMs === undefined ? { kind: row.kind } : { kind: row.kind, retryAfterMs: row.retryAfterMs };
      expect(backoffAfter({ level: row.level, until: 0 }, failure, 2 * S, NOW)).toEqual({ level: row.next, until: NOW + row.waitMs, waitMs: row.waitMs });
    });
  }
});
