/**
 * The platform's limit models: which calls each answers and which it refuses, the lockout a limit
 * starts, and how a call during a lockout restarts it. Each row is a series of call times (seconds
 * from 0) and what each call gets: "ok", or the second its lockout ends.
 */
import { describe, expect, it } from "vitest";
import { createLimiter, fastestSafeGapMs, LIMIT_MODELS, type LimitModelName } from "./limit-models";

const S = 1000;
const T0 = 1_700_000_000_000;
/** `n` calls `gap` seconds apart from `from` on. */
const every = (n: number, gap: number, from = 0) => Array.from({ length: n }, (_, i) => from + i * gap);

type Row = { name: string; model: LimitModelName; lockoutS?: number; calls: number[]; answers: ("ok" | number)[]; lockouts: number };

const rows: Row[] = [
  { name: "burst: 8 calls in 10 s are answered", model: "burst", calls: every(8, 1.25), answers: Array(8).fill("ok"), lockouts: 0 },
  {
    name: "burst: the 9th call within 10 s is refused and locks for 30 minutes",
    model: "burst",
    calls: every(9, 1.1),
    answers: [...Array(8).fill("ok"), 8.8 + 1800],
    lockouts: 1,
  },
  { name: "burst: 1.25 s apart forever is never over", model: "burst", calls: every(200, 1.25), answers: Array(200).fill("ok"), lockouts: 0 },
  {
    name: "burst: a call exactly 10 s after the first of 8 is in a new window",
    model: "burst",
    calls: [...every(8, 0.1), 10],
    answers: Array(9).fill("ok"),
    lockouts: 0,
  },
  {
    name: "burst: a call during the lockout is refused and restarts it from that call",
    model: "burst",
    lockoutS: 60,
    calls: [...every(9, 0.1), 30, 85, 100],
    answers: [...Array(8).fill("ok"), 60.8, 90, 145, 160],
    lockouts: 1,
  },
  {
    name: "burst: after the lockout, calls are answered again",
    model: "burst",
    lockoutS: 60,
    calls: [...every(9, 0.1), 61, 62],
    answers: [...Array(8).fill("ok"), 60.8, "ok", "ok"],
    lockouts: 1,
  },
  {
    name: "burst: a second limit after the lockout is a second lockout",
    model: "burst",
    lockoutS: 60,
    calls: [...every(9, 0.1), ...every(9, 0.1, 70)],
    answers: [...Array(8).fill("ok"), 60.8, ...Array(8).fill("ok"), 130.8],
    lockouts: 2,
  },
  { name: "minute: 40 calls in a minute are answered", model: "minute", calls: every(40, 1.5), answers: Array(40).fill("ok"), lockouts: 0 },
  {
    name: "minute: the 41st within 60 s is refused",
    model: "minute",
    calls: every(41, 1.4),
    answers: [...Array(40).fill("ok"), 56 + 1800],
    lockouts: 1,
  },
  {
    name: "minute: 1.25 s apart passes the burst model but not this one",
    model: "minute",
    calls: every(41, 1.25),
    answers: [...Array(40).fill("ok"), 50 + 1800],
    lockouts: 1,
  },
  { name: "hour: 1,500 calls 2.4 s apart are answered", model: "hour", calls: every(1500, 2.4), answers: Array(1500).fill("ok"), lockouts: 0 },
  {
    name: "hour: 2 s apart is refused at the 1,501st call (50 minutes in)",
    model: "hour",
    calls: every(1501, 2),
    answers: [...Array(1500).fill("ok"), 3000 + 1800],
    lockouts: 1,
  },
  {
    name: "hour: the calls before a lockout still count after it",
    model: "hour",
    lockoutS: 600,
    calls: [...every(1501, 2), 3601, 3601.5],
    // At 3601 s the window (1 s – 3601 s] still holds 1,499 of the calls before the lockout.
    answers: [...Array(1500).fill("ok"), 3600, "ok", 3601.5 + 600],
    lockouts: 2,
  },
  { name: "generous: 2 s apart is never over", model: "generous", calls: every(300, 2), answers: Array(300).fill("ok"), lockouts: 0 },
  { name: "generous: 20 calls in 10 s are answered", model: "generous", calls: every(21, 0.45), answers: [...Array(20).fill("ok"), 9 + 1800], lockouts: 1 },
];

describe("createLimiter", () => {
  it.each(rows)("$name", ({ model, lockoutS, calls, answers, lockouts }) => {
    const limiter = createLimiter(model, lockoutS === undefined ? {} : { lockoutMs: lockoutS * S });
    const got = calls.map((t) => {
      const a = limiter.call("driver", T0 + t * S);
      return a.ok ? "ok" : Math.round((a.lockedUntil - T0) / 100) / 10;
    });
    expect(got).toEqual(answers);
    expect(limiter.lockoutCount("driver")).toBe(lockouts);
    expect(limiter.overLimitCount("driver")).toBe(answers.filter((a) => a !== "ok").length);
  });

  it("counts each account apart", () => {
    const limiter = createLimiter("burst");
    for (const t of every(9, 0.1)) limiter.call("a", T0 + t * S);
    expect(limiter.call("b", T0 + S)).toEqual({ ok: true });
    expect(limiter.overLimitCount("a")).toBe(1);
    expect(limiter.overLimitCount("b")).toBe(0);
    expect(limiter.lockedUntil("a", T0 + S)).toBe(T0 + 800 + 1800 * S);
    expect(limiter.lockedUntil("b", T0 + S)).toBe(0);
  });

  it("forgets an account on reset", () => {
    const limiter = createLimiter("burst");
    for (const t of every(9, 0.1)) limiter.call("a", T0 + t * S);
    limiter.reset("a");
    expect(limiter.call("a", T0 + S)).toEqual({ ok: true });
    expect(limiter.overLimitCount("a")).toBe(0);
  });

  it("refuses a model without a positive count, window or lockout", () => {
    expect(() => createLimiter("burst", { lockoutMs: 0 })).toThrow();
    expect(() => createLimiter({ name: "burst", maxCalls: 0, windowMs: 10 })).toThrow();
  });
});

describe("fastestSafeGapMs", () => {
  it.each([
    ["burst", 1250],
    ["minute", 1500],
    ["hour", 2400],
    ["generous", 500],
  ] as const)("%s: %i ms", (model, ms) => {
    expect(fastestSafeGapMs(LIMIT_MODELS[model])).toBe(ms);
  });
});
