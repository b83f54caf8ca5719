/**
 * When the engine polls: the interval the environment sets, the minimum gap to the last poll, the
 * next poll (planned from the previous plan, jittered, after any back-off, at the expiry at the
 * latest), the wake of a paused engine, the back-off after a failure, and the interval adapted to
 * the platform's limit (the lockout after "Rate exceeded", the learned floor and its decay).
 */
import { describe, expect, it } from "vitest";
import type { PlatformErrorKind } from "./platform";
import {
  backoffAfter,
  earliestPoll,
  initialPacing,
  lockoutWaitMs,
  mayCallPlatform,
  type NextPollInput,
  nextPacedPoll,
  nextPoll,
  PACING,
  type PacingState,
  pacingAfterAnswer,
  pacingAfterLimit,
  pacingFloorMs,
  pollIntervalMs,
  wakeWhilePaused,
} from "./poll-pacing";
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

const MIN = 60 * S;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe("the adaptive interval", () => {
  const fresh = initialPacing();
  /** An account that hit its limit at 2.4 s three hours ago and has polled since. */
  const learned: PacingState = { intervalMs: 3000, learnedFloorMs: 3000, lockedUntil: 0, lockouts: 1, lastLimitAt: NOW - 3 * HOUR };
  type Row = { name: string; state: PacingState; event: "answer" | "limit"; at: number; next: PacingState };
  const rows: Row[] = [
    // Answers: the interval narrows by 10 % an hour of polls, never below the floor.
    {
      name: "an answer at 2 s narrows it a little (10 % an hour of polls)",
      state: fresh,
      event: "answer",
      at: NOW,
      next: { ...fresh, intervalMs: 2000 * 0.9 ** (2000 / HOUR) },
    },
    { name: "an answer at the floor leaves it there", state: { ...fresh, intervalMs: 1600 }, event: "answer", at: NOW, next: { ...fresh, intervalMs: 1600 } },
    {
      name: "an answer just over the floor stops at the floor",
      state: { ...fresh, intervalMs: 1600.05 },
      event: "answer",
      at: NOW,
      next: { ...fresh, intervalMs: 1600 },
    },
    {
      name: "an interval set below the floor (the tests' 300 ms) stays as set",
      state: initialPacing(300),
      event: "answer",
      at: NOW,
      next: initialPacing(300),
    },
    {
      name: "after a limit it does not narrow below the learned floor",
      state: { ...learned, lastLimitAt: NOW },
      event: "answer",
      at: NOW,
      next: { ...learned, lastLimitAt: NOW },
    },
    {
      name: "the learned floor decays 2 % a day: after ten days it is 2,451 ms",
      state: { ...learned, intervalMs: 2451.3, lastLimitAt: NOW - 10 * DAY },
      event: "answer",
      at: NOW,
      next: { ...learned, intervalMs: 3000 * 0.98 ** 10, lastLimitAt: NOW - 10 * DAY },
    },
    {
      name: "after a month and a half the learned floor is under the floor: 1.6 s again",
      state: { ...learned, intervalMs: 1600.05, lastLimitAt: NOW - 45 * DAY },
      event: "answer",
      at: NOW,
      next: { ...learned, intervalMs: 1600, lastLimitAt: NOW - 45 * DAY },
    },
    {
      name: "the first answer after a lockout clears it",
      state: { ...learned, lockedUntil: NOW - S },
      event: "answer",
      at: NOW,
      next: { ...learned, intervalMs: 3000 * 0.9 ** (3000 / HOUR) },
    },
    // Limits: the wait, the learned floor, the wider restart.
    {
      name: "a first limit at 2 s: 31 minutes without a call, the floor 2.5 s, restarting at 3 s",
      state: fresh,
      event: "limit",
      at: NOW,
      next: { intervalMs: 3000, learnedFloorMs: 2500, lockedUntil: NOW + 31 * MIN, lockouts: 1, lastLimitAt: NOW },
    },
    {
      name: "a second within a day waits 61 minutes and learns from the interval it was hit at",
      state: { ...learned, intervalMs: 2400 },
      event: "limit",
      at: NOW,
      next: { intervalMs: 3600, learnedFloorMs: 3000, lockedUntil: NOW + 61 * MIN, lockouts: 2, lastLimitAt: NOW },
    },
    {
      name: "the fourth in a row waits two hours and a minute",
      state: { ...learned, lockouts: 3 },
      event: "limit",
      at: NOW,
      next: { intervalMs: 4500, learnedFloorMs: 3750, lockedUntil: NOW + 121 * MIN, lockouts: 4, lastLimitAt: NOW },
    },
    {
      name: "the wait stops growing at the fourth",
      state: { ...learned, lockouts: 7 },
      event: "limit",
      at: NOW,
      next: { intervalMs: 4500, learnedFloorMs: 3750, lockedUntil: NOW + 121 * MIN, lockouts: 8, lastLimitAt: NOW },
    },
    {
      name: "a limit more than a day after the last is a first again",
      state: { ...learned, lockouts: 3, lastLimitAt: NOW - DAY - S },
      event: "limit",
      at: NOW,
      next: { intervalMs: 4500, learnedFloorMs: 3750, lockedUntil: NOW + 31 * MIN, lockouts: 1, lastLimitAt: NOW },
    },
    {
      name: "refused again before any answer: the lockout was longer, the wait grows, the interval stays",
      state: { intervalMs: 3000, learnedFloorMs: 2500, lockedUntil: NOW - S, lockouts: 1, lastLimitAt: NOW - 31 * MIN },
      event: "limit",
      at: NOW,
      next: { intervalMs: 3000, learnedFloorMs: 2500, lockedUntil: NOW + 61 * MIN, lockouts: 2, lastLimitAt: NOW },
    },
    {
      name: "never wider than 20 s",
      state: { ...learned, intervalMs: 18_000, learnedFloorMs: 18_000 },
      event: "limit",
      at: NOW,
      next: { intervalMs: 20_000, learnedFloorMs: 20_000, lockedUntil: NOW + 61 * MIN, lockouts: 2, lastLimitAt: NOW },
    },
  ];
  it.each(rows)("$name", ({ state, event, at, next }) => {
    const got = event === "answer" ? pacingAfterAnswer(state, at) : pacingAfterLimit(state, at);
    expect({ ...got, intervalMs: Math.round(got.intervalMs * 1000) / 1000 }).toEqual({ ...next, intervalMs: Math.round(next.intervalMs * 1000) / 1000 });
  });

  it.each([
    { name: "no limit seen: the floor", state: fresh, floor: PACING.floorMs },
    { name: "a limit just now: what it taught", state: { ...learned, lastLimitAt: NOW }, floor: 3000 },
    { name: "a day later: 2 % less", state: { ...learned, lastLimitAt: NOW - DAY }, floor: 2940 },
    { name: "a week later", state: { ...learned, lastLimitAt: NOW - 7 * DAY }, floor: 3000 * 0.98 ** 7 },
    { name: "taught less than the floor: the floor", state: { ...learned, learnedFloorMs: 1500, lastLimitAt: NOW }, floor: PACING.floorMs },
  ])("floor: $name", ({ state, floor }) => {
    expect(pacingFloorMs(state, NOW)).toBeCloseTo(floor, 6);
  });

  it.each([
    [1, 31 * MIN],
    [2, 61 * MIN],
    [3, 91 * MIN],
    [4, 121 * MIN],
    [9, 121 * MIN],
  ])("the lockout %i in a row is waited out for %i ms", (n, ms) => {
    expect(lockoutWaitMs(n)).toBe(ms);
  });

  it.each([
    // A shorter first lockout (the tests' CAPTURE_LOCKOUT_MS): its margin is a thirtieth of it.
    [1, 1000, 1000 + 1000 / 30],
    [2, 1000, 2000 + 1000 / 30],
    [5, 1000, 4000 + 1000 / 30],
    // A longer one keeps the margin at a minute.
    [1, 60 * MIN, 61 * MIN],
  ])("the lockout %i in a row, from a first of %i ms, is waited out for %f ms", (n, first, ms) => {
    expect(lockoutWaitMs(n, first)).toBeCloseTo(ms, 6);
  });

  const locked: PacingState = { intervalMs: 3000, learnedFloorMs: 2500, lockedUntil: NOW + 20 * MIN, lockouts: 1, lastLimitAt: NOW - 11 * MIN };
  const poll = { now: NOW, plannedAt: null, lastPollAt: NOW - 100, backoff: { level: 0, until: 0 }, expirationAt: null, random: 0.5 };
  it.each([
    { name: "not locked: one of its own interval after the last poll", state: { ...locked, lockedUntil: 0 }, over: {}, at: NOW - 100 + 3000 },
    { name: "locked out: when the lockout ends", state: locked, over: {}, at: NOW + 20 * MIN },
    { name: "a back-off ending after the lockout: the back-off", state: locked, over: { backoff: { level: 2, until: NOW + 25 * MIN } }, at: NOW + 25 * MIN },
    { name: "the expiry within the lockout: the expiry", state: locked, over: { expirationAt: NOW + 5 * MIN }, at: NOW + 5 * MIN },
    { name: "a lockout already over: the interval again", state: { ...locked, lockedUntil: NOW - S }, over: {}, at: NOW - 100 + 3000 },
  ])("next poll: $name", ({ state, over, at }) => {
    expect(nextPacedPoll(state, { ...poll, ...over })).toBe(at);
  });

  it.each([
    { at: NOW + 20 * MIN - 1, may: false },
    { at: NOW + 20 * MIN, may: true },
  ])("a capacity call at lockout end $at − NOW ms: $may", ({ at, may }) => {
    expect(mayCallPlatform(locked, at)).toBe(may);
  });
});
