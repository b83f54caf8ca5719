/**
 * When the engine polls (docs/engine.md, "Pacing"): the next poll after the previous plan, jittered,
 * never closer than a share of the interval to the last poll's answer; and the interval itself,
 * adapted per account to the platform's unpublished limit. Pure and without imports, so the pacing
 * bench (bench/engine-pacing.ts) runs the engine's own rule in Node; poll-pacing.ts re-exports it.
 */

/** Polls are never closer than this share of the interval, however late the previous one ran. */
export const MIN_GAP_SHARE = 0.85;
const JITTER_SHARE = 0.05;

export type Backoff = { level: number; until: number };

/** The soonest a poll may run: never closer than the minimum gap to the last one. */
export function earliestPoll(lastPollAt: number | null, interval: number, now: number): number {
  return lastPollAt === null ? now : Math.max(now, lastPollAt + interval * MIN_GAP_SHARE);
}

export type NextPollInput = {
  now: number;
  interval: number;
  /** When the previous poll was planned for, if it was planned. */
  plannedAt: number | null;
  lastPollAt: number | null;
  backoff: Backoff;
  /** Service ends then: the expiry is checked when it comes, not a poll later. */
  expirationAt: number | null;
  /** A number in [0, 1) for the jitter. */
  random: number;
};

/** The next poll: one jittered interval after the previous plan (so lateness does not accumulate), within the rules. */
export function nextPoll(p: NextPollInput): number {
  const jitter = 1 + (p.random * 2 - 1) * JITTER_SHARE;
  const base = p.plannedAt !== null && p.plannedAt > p.now - p.interval ? p.plannedAt : (p.lastPollAt ?? p.now);
  const next = Math.max(base + p.interval * jitter, earliestPoll(p.lastPollAt, p.interval, p.now), p.backoff.until);
  return p.expirationAt !== null && p.expirationAt > p.now ? Math.min(next, p.expirationAt) : next;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * The adaptive interval's settings. The floor: 1.6 s, so even the jitter's shortest gap (1.52 s)
 * stays over a limit of 40 calls a minute, the tightest short window we model (8 in 10 s is
 * 1.25 s); polling faster would buy little and risk lockouts of half an hour each.
 */
export const PACING = {
  startMs: 2000,
  floorMs: 1600,
  /** The widest interval: a limit hit because of other calls on the account (its own app) never widens past this. */
  maxMs: 20_000,
  /** The first lockout's wait; the n-th within a day waits n times this, up to `maxLockoutSteps` times. */
  lockoutMs: 30 * MINUTE,
  maxLockoutSteps: 4,
  /** Over the wait: the lockout lasts "about" 30 minutes, and a call during it prolongs it. */
  lockoutMarginMs: MINUTE,
  /** A lockout within this of the previous one counts as the next in a row. */
  lockoutRunMs: DAY,
  /** The interval a limit was hit at, times this, is not narrowed below while the memory lasts. */
  limitMargin: 1.25,
  /** After a lockout the interval resumes this much wider than when the limit was hit. */
  resumeWiden: 1.5,
  /** How much the interval narrows per hour of answered polls. */
  narrowPerHour: 0.1,
  /** How much the learned floor decays per day since the last limit. */
  floorDecayPerDay: 0.02,
} as const;

/** What the engine keeps per account (in its storage): plain numbers. */
export type PacingState = {
  /** The interval between polls now. */
  intervalMs: number;
  /** The last limit's interval times the margin, as it was then (0: no limit seen); it decays from `lastLimitAt`. */
  learnedFloorMs: number;
  /** No capacity call before this; 0 once a call has been answered since. */
  lockedUntil: number;
  /** Lockouts in a row, each within a day of the one before. */
  lockouts: number;
  lastLimitAt: number | null;
};

export function initialPacing(intervalMs: number = PACING.startMs): PacingState {
  return { intervalMs, learnedFloorMs: 0, lockedUntil: 0, lockouts: 0, lastLimitAt: null };
}

/** The interval the account may narrow to at `now`: the floor, or what the last limit taught, decayed by the days since. */
export function pacingFloorMs(state: PacingState, now: number): number {
  if (state.lastLimitAt === null || state.learnedFloorMs <= PACING.floorMs) return PACING.floorMs;
  const days = Math.max(0, now - state.lastLimitAt) / DAY;
  return Math.max(PACING.floorMs, state.learnedFloorMs * (1 - PACING.floorDecayPerDay) ** days);
}

/**
 * After a capacity call the platform answered: the interval narrows a little (by `narrowPerHour`
 * an hour), never below the floor. One set below the floor (the tests' 300 ms) stays as set.
 */
export function pacingAfterAnswer(state: PacingState, now: number): PacingState {
  const floor = pacingFloorMs(state, now);
  const narrowed = state.intervalMs * (1 - PACING.narrowPerHour) ** (state.intervalMs / HOUR);
  const intervalMs = state.intervalMs <= floor ? state.intervalMs : Math.max(floor, narrowed);
  return intervalMs === state.intervalMs && state.lockedUntil === 0 ? state : { ...state, intervalMs, lockedUntil: 0 };
}

/**
 * How long the n-th lockout in a row is waited out, from a first lockout of `lockoutMs` (the
 * engine's setting; 30 minutes in production, short in tests). The margin is a thirtieth of it, a
 * minute at most.
 */
export function lockoutWaitMs(n: number, lockoutMs: number = PACING.lockoutMs): number {
  return lockoutMs * Math.min(Math.max(1, n), PACING.maxLockoutSteps) + Math.min(PACING.lockoutMarginMs, lockoutMs / 30);
}

/**
 * After "Rate exceeded" at `now`: no capacity call until the lockout should be over (30 × n
 * minutes for the n-th in a row), the interval it was hit at remembered with a margin, and the
 * polls resume wider still. Refused again before any call was answered, the lockout was simply
 * longer than waited: the wait grows, but the interval says nothing new and stays.
 */
export function pacingAfterLimit(state: PacingState, now: number, lockoutMs: number = PACING.lockoutMs): PacingState {
  const inRow = state.lastLimitAt !== null && now - state.lastLimitAt < PACING.lockoutRunMs;
  const lockouts = inRow ? state.lockouts + 1 : 1;
  if (state.lockedUntil !== 0) return { ...state, lockedUntil: now + lockoutWaitMs(lockouts, lockoutMs), lockouts, lastLimitAt: now };
  const learnedFloorMs = Math.min(PACING.maxMs, state.intervalMs * PACING.limitMargin);
  return {
    intervalMs: Math.min(PACING.maxMs, Math.max(learnedFloorMs, state.intervalMs * PACING.resumeWiden)),
    learnedFloorMs,
    lockedUntil: now + lockoutWaitMs(lockouts, lockoutMs),
    lockouts,
    lastLimitAt: now,
  };
}

/** Whether a capacity call (offers, accept, schedule) may go out at `now`. */
export function mayCallPlatform(state: PacingState, now: number): boolean {
  return now >= state.lockedUntil;
}

/** The next poll under the account's pacing: `nextPoll` at its interval, and not before its lockout ends (but at the expiry). */
export function nextPacedPoll(state: PacingState, p: Omit<NextPollInput, "interval">): number {
  const until = Math.max(p.backoff.until, state.lockedUntil);
  return nextPoll({ ...p, interval: state.intervalMs, backoff: { ...p.backoff, until } });
}
