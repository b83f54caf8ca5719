/**
 * `node bench/engine-pacing.ts`: the engine's pacing rule (src/worker/platform/poll-timing.ts)
 * against each limit model of the platform (test/fake-platform/limit-models.ts), on a virtual clock.
 * Each account searches 10 hours a day for a week (idle the other 14), starting at the production
 * interval (2 s); each alarm fires a little late (rarely a lot: a busy runtime), each call takes a
 * while to reach the platform and its answer a while to come back, and the next poll is planned as
 * the engine plans it (jitter, minimum gap, lockout). Goals, for every model and every account:
 * at most 1 lockout per account-week after the first day (the first day, when the account's limit is
 * still unknown, is counted apart), and a median gap between polls within 1.5× of the fastest gap
 * the model allows. The generous model (the demo's and bench:engine's) must never lock out.
 *
 * The full run also prints, for comparison and without goals, the engine's former fixed 2 s
 * interval against the same models, and the rule against three limits stricter than the models
 * (6 calls in 10 s, 30 in a minute, 1,000 in an hour), which it was not tuned to.
 *
 * Options: --short (one day, 3 accounts a model: it must run; goals printed, not enforced),
 * --accounts N (16), --days N (7), --lockout-minutes M (the platform's lockout, 30),
 * --main-only (the goals' table alone). Other options (bench/short.ts passes its own) are ignored.
 */
import { pathToFileURL } from "node:url";
import { prng } from "../scripts/seed/people.ts";
import {
  earliestPoll,
  initialPacing,
  mayCallPlatform,
  nextPacedPoll,
  type PacingState,
  pacingAfterAnswer,
  pacingAfterLimit,
} from "../src/worker/platform/poll-timing.ts";
import { createLimiter, DEFAULT_LOCKOUT_MS, fastestSafeGapMs, LIMIT_MODELS, type LimitModel } from "../test/fake-platform/limit-models.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SEARCH_HOURS = 10;
const START_MS = 2000;
const T0 = Date.UTC(2026, 0, 5);
const LOCKOUT_GOAL = 1;
const GAP_GOAL = 1.5;
const STRICTER_MODELS: LimitModel[] = [
  { name: "burst-6", maxCalls: 6, windowMs: 10_000 },
  { name: "minute-30", maxCalls: 30, windowMs: 60_000 },
  { name: "hour-1000", maxCalls: 1000, windowMs: 3_600_000 },
];

export type AccountWeek = {
  seed: number;
  /** Lockouts started on each day. */
  lockoutsByDay: number[];
  /** Median gap between calls reaching the platform, days 2 on (the first day when there is only one). */
  medianGapMs: number;
  polls: number;
  finalIntervalMs: number;
};

/** One account's days against one model. `fixed`: the interval stays at 2 s (the engine before adaptive pacing). */
export function simulateAccount(model: LimitModel, seed: number, days: number, fixed = false, lockoutMs = DEFAULT_LOCKOUT_MS): AccountWeek {
  const random = prng(seed * 7919 + model.maxCalls);
  const limiter = createLimiter(model, { lockoutMs });
  const id = "account";
  let state: PacingState = initialPacing(START_MS);
  let plannedAt: number | null = null;
  let lastPollAt: number | null = null;
  const lockoutsByDay: number[] = [];
  const gaps: number[] = [];
  let polls = 0;
  /** The alarm's delay: usually a few ms, now and then a busy runtime's second or so. */
  const lateness = () => (random() < 0.03 ? 40 + random() * 1460 : random() * 40);
  /** One way to or from the platform. */
  const latency = () => (random() < 0.01 ? 150 + random() * 1850 : 30 + random() * 120);
  for (let day = 0; day < days; day++) {
    const opens = T0 + day * DAY;
    const closes = opens + SEARCH_HOURS * HOUR;
    const lockoutsBefore = limiter.lockoutCount(id);
    let lastArrival: number | null = null;
    plannedAt = null;
    let alarm = Math.max(opens, state.lockedUntil);
    while (alarm < closes) {
      const fired = alarm + lateness();
      // The engine's own checks when its alarm fires: the minimum gap, then the lockout.
      const earliest = earliestPoll(lastPollAt, state.intervalMs, fired);
      if (fired < earliest) {
        alarm = earliest;
        continue;
      }
      if (!mayCallPlatform(state, fired)) {
        alarm = state.lockedUntil;
        continue;
      }
      const arrival = fired + latency();
      const answer = limiter.call(id, arrival);
      const answeredAt = arrival + latency();
      polls++;
      if (lastArrival !== null && (day > 0 || days === 1)) gaps.push(arrival - lastArrival);
      lastArrival = arrival;
      lastPollAt = answeredAt;
      if (!fixed) state = answer.ok ? pacingAfterAnswer(state, answeredAt) : pacingAfterLimit(state, answeredAt);
      else if (!answer.ok) state = { ...state, lockedUntil: answeredAt + 31 * 60_000 };
      plannedAt = nextPacedPoll(state, { now: answeredAt, plannedAt, lastPollAt, backoff: { level: 0, until: 0 }, expirationAt: null, random: random() });
      alarm = plannedAt;
    }
    lockoutsByDay.push(limiter.lockoutCount(id) - lockoutsBefore);
  }
  return { seed, lockoutsByDay, medianGapMs: median(gaps), polls, finalIntervalMs: state.intervalMs };
}

function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export type ModelResult = {
  model: LimitModel;
  fastestGapMs: number;
  accounts: AccountWeek[];
  /** Lockouts per account-week after the first day: mean over accounts, and the worst account's. */
  laterLockoutsMean: number;
  laterLockoutsWorst: number;
  firstDayLockoutsMean: number;
  firstDayLockoutsWorst: number;
  medianGapMs: number;
  worstMedianGapMs: number;
  meetsGoals: boolean;
};

export function runModel(model: LimitModel, accounts: number, days: number, fixed = false, lockoutMs = DEFAULT_LOCKOUT_MS): ModelResult {
  const runs = Array.from({ length: accounts }, (_, i) => simulateAccount(model, i + 1, days, fixed, lockoutMs));
  const later = runs.map((r) => r.lockoutsByDay.slice(1).reduce((a, b) => a + b, 0) * (7 / Math.max(1, days - 1)));
  const first = runs.map((r) => r.lockoutsByDay[0]!);
  const gaps = runs.map((r) => r.medianGapMs);
  const fastestGapMs = fastestSafeGapMs(model);
  const laterLockoutsWorst = Math.max(...later);
  const worstMedianGapMs = Math.max(...gaps);
  const meetsGoals =
    model.name === "generous"
      ? runs.every((r) => r.lockoutsByDay.every((n) => n === 0))
      : laterLockoutsWorst <= LOCKOUT_GOAL && worstMedianGapMs <= GAP_GOAL * fastestGapMs;
  return {
    model,
    fastestGapMs,
    accounts: runs,
    laterLockoutsMean: later.reduce((a, b) => a + b, 0) / accounts,
    laterLockoutsWorst,
    firstDayLockoutsMean: first.reduce((a, b) => a + b, 0) / accounts,
    firstDayLockoutsWorst: Math.max(...first),
    medianGapMs: median(gaps),
    worstMedianGapMs,
    meetsGoals,
  };
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const n = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2));

export function printResults(results: ModelResult[], title: string): void {
  console.log(`\n${title}\n`);
  const days = results[0]?.accounts[0]?.lockoutsByDay.length ?? 0;
  const gapDays = days > 1 ? `days 2–${days}` : "day 1";
  console.log(
    `| model | fastest safe gap | lockouts on day 1 (mean / worst account) | lockouts per account-week after day 1 (mean / worst account) | median gap, ${gapDays} (median / worst account) | goals |`,
  );
  console.log("|---|---|---|---|---|---|");
  for (const r of results) {
    const gapGoal = r.model.name === "generous" ? "never locked" : `≤ ${LOCKOUT_GOAL}; ≤ ${s(GAP_GOAL * r.fastestGapMs)}`;
    console.log(
      `| ${r.model.name} (${r.model.maxCalls} in ${r.model.windowMs / 1000} s) | ${s(r.fastestGapMs)} | ${n(r.firstDayLockoutsMean)} / ${r.firstDayLockoutsWorst} | ${days > 1 ? `${n(r.laterLockoutsMean)} / ${n(r.laterLockoutsWorst)}` : "—"} | ${s(r.medianGapMs)} / ${s(r.worstMedianGapMs)} | ${gapGoal}: ${r.meetsGoals ? "met" : "**missed**"} |`,
    );
  }
}

/**
 * The pacing bench, printed: the one call bench/engine.ts and bench/short.ts make. True when every
 * model meets its goals (a short run only has to run: it returns true).
 */
export function pacingBench(options: {
  short: boolean;
  accounts?: number;
  days?: number;
  fixed?: boolean;
  stricter?: boolean;
  lockoutMinutes?: number;
}): boolean {
  const days = options.days ?? (options.short ? 1 : 7);
  const accounts = options.accounts ?? (options.short ? 3 : 16);
  const models = [LIMIT_MODELS.burst, LIMIT_MODELS.minute, LIMIT_MODELS.hour, LIMIT_MODELS.generous];
  const started = performance.now();
  const lockoutMs = (options.lockoutMinutes ?? 30) * 60_000;
  const results = models.map((m) => runModel(m, accounts, days, false, lockoutMs));
  const lockout = `, the platform locking out for ${lockoutMs / 60_000} minutes`;
  printResults(
    results,
    `Pacing: ${accounts} accounts a model, ${days} day${days === 1 ? "" : "s"} of ${SEARCH_HOURS} h searching, from a ${s(START_MS)} interval${lockout}`,
  );
  if (options.fixed ?? !options.short)
    printResults(
      models.map((m) => runModel(m, accounts, days, true, lockoutMs)),
      "The fixed 2 s interval, for comparison",
    );
  // Limits the rule was not tuned to (informational): one between its floor and the start, one at the start, one well over it.
  if (options.stricter ?? !options.short)
    printResults(
      STRICTER_MODELS.map((m) => runModel(m, accounts, days, false, lockoutMs)),
      "Stricter limits than the models (informational, not goals)",
    );
  const polls = results.reduce((a, r) => a + r.accounts.reduce((b, x) => b + x.polls, 0), 0);
  console.log(`\n${polls.toLocaleString("en-US")} polls in the goals' table; ${((performance.now() - started) / 1000).toFixed(1)} s in all`);
  // Even a short run must have polled every account and measured its gaps.
  const ran = results.every((r) => r.accounts.every((a) => a.polls > 0 && Number.isFinite(a.medianGapMs)));
  const met = results.every((r) => r.meetsGoals);
  if (!ran) console.log("an account did not poll: the simulation is broken");
  else if (options.short) console.log("(short run: the goals are printed, enforced by the full run)");
  else console.log(met ? "every model meets its goals" : "a goal is missed");
  return ran && (options.short || met);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    if (i < 0) return undefined;
    const value = Number(process.argv[i + 1]);
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} takes a whole number, not "${process.argv[i + 1]}"`);
    return value;
  };
  const ok = pacingBench({
    short: process.argv.includes("--short"),
    accounts: arg("accounts"),
    days: arg("days"),
    ...(process.argv.includes("--main-only") ? { fixed: false, stricter: false } : {}),
    lockoutMinutes: arg("lockout-minutes"),
  });
  process.exit(ok ? 0 : 1);
}
