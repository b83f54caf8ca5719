/**
 * How the delivery platform may limit an account's capacity calls (docs/engine.md, "Pacing"). The
 * real limit is not published: an account over it gets 400 "Rate exceeded" with no Retry-After and
 * is locked out for about 30 minutes. These models are our guesses at it, shared by the fake
 * platform and bench/engine-pacing.ts. Pure: the caller gives the clock.
 *
 * Each model counts the calls the platform answered in a sliding window. A call that would be one
 * too many is refused and starts a lockout of `lockoutMs`; every call during a lockout is refused
 * too and restarts the lockout from that call (the spec only says such calls prolong it; restarting
 * is the harshest reading, so a client that survives it survives the others). Refused calls do not
 * count in the window, and the window keeps its calls through a lockout: an account locked out by
 * the hour model comes back with the half hour before the lockout still counted.
 */

export type LimitModelName = "burst" | "minute" | "hour" | "generous";

export type LimitModel = {
  name: string;
  /** More calls than this within the window are over the limit. */
  maxCalls: number;
  windowMs: number;
};

export const LIMIT_MODELS: Record<LimitModelName, LimitModel> = {
  burst: { name: "burst", maxCalls: 8, windowMs: 10_000 },
  minute: { name: "minute", maxCalls: 40, windowMs: 60_000 },
  hour: { name: "hour", maxCalls: 1500, windowMs: 3_600_000 },
  // The demo and bench:engine's scale runs: a driver polling at the production pace (2 s, never
  // closer than 1.7 s) makes at most 6 calls in 10 s, a third of this.
  generous: { name: "generous", maxCalls: 20, windowMs: 10_000 },
};

/** The lockout after a limit is hit, unless the caller sets one. */
export const DEFAULT_LOCKOUT_MS = 30 * 60_000;

/** The narrowest even gap between calls that never goes over the model's limit. */
export function fastestSafeGapMs(model: LimitModel): number {
  return model.windowMs / model.maxCalls;
}

export type LimitAnswer = { ok: true } | { ok: false; lockedUntil: number };

export type Limiter = {
  /** One capacity call of the account arriving at `now`: answered, or refused as over the limit. */
  call(accountId: string, now: number): LimitAnswer;
  /** Calls refused so far (the one that hit the limit, and every one during a lockout). */
  overLimitCount(accountId: string): number;
  /** Lockouts started so far (calls during a lockout prolong it and start none). */
  lockoutCount(accountId: string): number;
  /** When the account's lockout ends, or 0 when it is not locked out at `now`. */
  lockedUntil(accountId: string, now: number): number;
  /** Forgets an account, or every account. */
  reset(accountId?: string): void;
};

type AccountCalls = {
  /** Times of the answered calls, oldest first, from `head` on (a queue without shifting). */
  times: number[];
  head: number;
  lockedUntil: number;
  refused: number;
  lockouts: number;
};

export function createLimiter(model: LimitModel | LimitModelName, options: { lockoutMs?: number } = {}): Limiter {
  const { maxCalls, windowMs } = typeof model === "string" ? LIMIT_MODELS[model] : model;
  const lockoutMs = options.lockoutMs ?? DEFAULT_LOCKOUT_MS;
  if (!(lockoutMs > 0) || !(maxCalls > 0) || !(windowMs > 0)) throw new Error("a limit needs a positive count, window and lockout");
  const accounts = new Map<string, AccountCalls>();
  const of = (id: string) => {
    let a = accounts.get(id);
    if (!a) {
      a = { times: [], head: 0, lockedUntil: 0, refused: 0, lockouts: 0 };
      accounts.set(id, a);
    }
    return a;
  };
  return {
    call(accountId, now) {
      const a = of(accountId);
      if (now < a.lockedUntil) {
        a.refused++;
        a.lockedUntil = now + lockoutMs;
        return { ok: false, lockedUntil: a.lockedUntil };
      }
      while (a.head < a.times.length && a.times[a.head]! <= now - windowMs) a.head++;
      if (a.head > 4096 && a.head * 2 > a.times.length) {
        a.times = a.times.slice(a.head);
        a.head = 0;
      }
      if (a.times.length - a.head >= maxCalls) {
        a.refused++;
        a.lockouts++;
        a.lockedUntil = now + lockoutMs;
        return { ok: false, lockedUntil: a.lockedUntil };
      }
      a.times.push(now);
      return { ok: true };
    },
    overLimitCount: (accountId) => accounts.get(accountId)?.refused ?? 0,
    lockoutCount: (accountId) => accounts.get(accountId)?.lockouts ?? 0,
    lockedUntil(accountId, now) {
      const until = accounts.get(accountId)?.lockedUntil ?? 0;
      return until > now ? until : 0;
    },
    reset(accountId) {
      if (accountId === undefined) accounts.clear();
      else accounts.delete(accountId);
    },
  };
}
