/**
 * `npm run bench:engine`: the capture engine (one CaptureSession Durable Object per driver) in the
 * production build under `wrangler dev`, against the fake delivery platform over HTTP
 * (test/fake-platform, run in this process). Budgets (docs/engine.md):
 *
 *   (a) reaction: from the moment the platform's answer carrying a matching offer is sent to the
 *       moment its accept arrives, p50 and p95 — goal p95 ≤ 25 ms.
 *   (b) scale: N drivers searching at a 2 s interval for 60 s, N = 100, 500, 1000: polls on time
 *       (gap within 2 s ± 500 ms) — goal ≥ 95 % at N = 500; polls over the platform's limit
 *       (one per 1.5 s per driver, and the generous limit model's 20 calls in 10 s) — goal 0; offers
 *       accepted twice or overlapping — goal 0; offers shown but not recorded — goal 0.
 *   (c) pacing (engine-pacing.ts): the adaptive pacing rule against the limit models on a virtual clock.
 *
 * Drivers are seeded straight into the bench's own database (bench/seeded-drivers.ts), each with
 * an ID token for its session; every engine is then turned on through the real route
 * (POST /api/driver/engine).
 *
 * Options: --short (the small run npm test makes), --sizes 100,500,1000, --seconds 60, --scale-only (skip (a)),
 * --switch-concurrency K (switch requests in flight at once), --skip-build, --build-dir DIR, --port P (the Worker;
 * the fake platform takes P+1; default: the first two free ports from 8834).
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { freePorts } from "../scripts/ports.ts";
import { startFakePlatform } from "../test/fake-platform/server.ts";
import { type EngineUnits, engineUnits, printEngineUnits, storageGrowth } from "./engine-units.ts";
import { stringArg as arg, buildCopy, devVarsOf, flag, freshState, percentile, signInDriver, startWorker } from "./harness.ts";
import { type SeededDriver, seedFlexDrivers } from "./seeded-drivers.ts";
import { d1Bytes, difference, per, saveUnits, sum, WorkerLog, workerdCpuSeconds } from "./units.ts";

const [short, scaleOnly] = [flag("short"), flag("scale-only")];
const sizes = (arg("sizes") ?? (short ? "20" : "100,500,1000")).split(",").map(Number);
const seconds = Number(arg("seconds") ?? (short ? 12 : 60));
const port = Number(arg("port") ?? (await freePorts(8834, 2)));
const buildDir = arg("build-dir") ?? ".wrangler/bench-engine-build";
const state = `.wrangler/bench-engine-state-${port}`;
const INTERVAL_MS = 2000;
const ON_TIME_MS = 500;
/** The platform's limit in this bench: one offers call per 1.5 s per driver (a bucket of one). */
const PLATFORM_RATE = 1 / 1.5;
const REACTION_DRIVERS = short ? 5 : 20;
const REACTION_OFFERS = short ? 10 : 60;

if (sizes.some((n) => !Number.isInteger(n) || n < 1) || !Number.isFinite(seconds) || seconds < 5)
  throw new Error("--sizes takes whole numbers, --seconds at least 5");
const maxDrivers = Math.max(...sizes, REACTION_DRIVERS);

// Stopped from outside: the exit handlers stop wrangler dev (bench/harness.ts), so no server is left running.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(130));

if (!process.argv.includes("--skip-build")) buildCopy(buildDir);
// Miniflare's local observability collector fails under this load ("Cannot perform I/O on behalf
// of a different request") and takes requests down with it; the bench runs without it, from a
// config of its own beside the build's (a shared build copy, as bench/short.ts hands out, stays as it is).
const configPath = `${buildDir}/blockpilot/wrangler.json`;
const config = JSON.parse(readFileSync(configPath, "utf8")) as { observability?: { enabled?: boolean } };
const engineConfigPath = `${buildDir}/blockpilot/wrangler.engine-bench.json`;
writeFileSync(engineConfigPath, JSON.stringify({ ...config, observability: { enabled: false } }));
freshState(state);
const vars = devVarsOf(buildDir);

// ---- The fake platform and the drivers ----
const platform = await startFakePlatform({
  port: port + 1,
  // Every account under the generous limit model (as the demo), with its 30-minute lockout; the offers
  // bucket on top checks the pace itself: a poll closer than 1.5 s to the last would be "over the limit".
  config: {
    limitModel: "generous",
    offersRate: PLATFORM_RATE,
    offersBurst: 1,
    offersPerMinute: 0,
    competitorTakePerSecond: 0.005,
    offerLifetimeMs: [20_000, 60_000],
  },
});
const control = (what: string, body?: unknown) =>
  fetch(`${platform.url}/__control/${what}`, {
    signal: AbortSignal.timeout(20_000),
    ...(body === undefined ? {} : { method: "POST", body: JSON.stringify(body) }),
  }).then((r) => r.json() as Promise<Record<string, unknown>>);

type BenchDriver = SeededDriver;
const USER_BASE = 3_000_000;

console.log(`Seeding ${maxDrivers} drivers…`);
// A third of the drivers want more pay than most offers give.
const drivers = await seedFlexDrivers({
  platformUrl: platform.url,
  state,
  vars,
  count: maxDrivers,
  userBase: USER_BASE,
  minPayOf: (i) => (i % 3 === 0 ? 9000 : 0),
});
// The engines' capture.usage lines every 5 s, and the Worker's worker.usage lines (bench/units.ts).
const workerLog = new WorkerLog();
const USAGE_EVERY_MS = 5000;
const worker = await startWorker({
  dir: buildDir,
  config: engineConfigPath,
  port,
  state,
  vars: {
    FLEX_SIGN_IN_BASE: `${platform.url}/flex`,
    FLEX_IDENTITY_BASE: `${platform.url}/flex`,
    FLEX_CAPACITY_BASE: `${platform.url}/flex`,
    SPARK_PLATFORM_API_BASE: `${platform.url}/spark`,
    CAPTURE_POLL_INTERVAL_MS: String(INTERVAL_MS),
    CAPTURE_USAGE_LOG_MS: String(USAGE_EVERY_MS),
    USAGE_LOG: "1",
  },
  onLog: workerLog.onLog,
});

/** Fails a step that does not finish in time with a clear message, instead of letting the run hang. */
async function within<T>(what: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s`)), ms);
  });
  try {
    return await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}

/** One request's time limit: a request the local runtime never answers is retried, not waited on for minutes. */
const REQUEST_MS = 20_000;
/** Switch requests in flight at once. */
const SWITCH_CONCURRENCY = Number(arg("switch-concurrency") ?? 8);
/** Requests retried after a network error, a time-out or a 5xx (start and stop are idempotent, so a retry is safe). */
let retried = 0;

/**
 * Turns engines on or off through the API (the route starts or stops the driver's Durable Object),
 * a bounded number at a time; answers how long it took.
 */
async function switchEngines(list: BenchDriver[], on: boolean): Promise<number> {
  const started = Date.now();
  const queue = [...list];
  const failures: string[] = [];
  let done = 0;
  const progress = setInterval(
    () =>
      console.log(`  … ${done} of ${list.length} switched ${on ? "on" : "off"} in ${((Date.now() - started) / 1000).toFixed(0)} s, ${retried} retried so far`),
    10_000,
  );
  const work = Promise.all(
    Array.from({ length: Math.min(SWITCH_CONCURRENCY, list.length) }, async () => {
      for (let d = queue.shift(); d; d = queue.shift()) {
        for (let attempt = 0; ; attempt++) {
          const res = await fetch(`${worker.url}/api/driver/engine`, {
            method: "POST",
            headers: { Authorization: `Bearer ${d.token}`, "Content-Type": "application/json" },
            body: JSON.stringify({ on }),
            signal: AbortSignal.timeout(REQUEST_MS),
          }).catch((err: unknown) => new Response(String(err), { status: 599 }));
          if (res.ok) {
            await res.arrayBuffer();
            done++;
            break;
          }
          const text = await res.text();
          if (res.status >= 500 && attempt < 5) {
            retried++;
            if (retried <= 5)
              console.log(
                `  retrying a switch ${on ? "on" : "off"} after ${done} done, ${Date.now() - started} ms in (${res.status} ${text.split("\n")[0]!.slice(0, 100)})`,
              );
            await sleep(250 * 2 ** attempt);
            continue;
          }
          failures.push(`${d.userId}: ${res.status} ${text}`);
          break;
        }
      }
    }),
  );
  // Each driver may take its full retries; beyond that something is stuck.
  try {
    await within(`switching ${list.length} engines ${on ? "on" : "off"}`, 60_000 + list.length * 1000, work);
  } finally {
    clearInterval(progress);
  }
  if (failures.length > 0) throw new Error(`engines refused to switch ${on ? "on" : "off"}: ${failures.slice(0, 3).join("; ")}`);
  return Date.now() - started;
}

/**
 * CPU seconds used by this process's descendants (wrangler dev, its proxy and the workerd running the
 * Worker): on a shared, loaded machine the wall clock says how long things waited for a core, this
 * says how much work each poll really costs.
 */
function workerCpuSeconds(): number {
  const procs = new Map<number, { ppid: number; cpu: number }>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // After the name: state, ppid, …; utime and stime are the 14th and 15th fields of the whole line.
      procs.set(Number(name), { ppid: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / 100 });
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  for (const [pid, p] of procs) {
    if (pid === process.pid) continue;
    for (let up = p.ppid, hops = 0; up > 1 && hops < 10; up = procs.get(up)?.ppid ?? 0, hops++) {
      if (up === process.pid) {
        total += p.cpu;
        break;
      }
    }
  }
  return total;
}
const ownCpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

type Stats = {
  drivers: Record<string, { polls: number; overLimit: number; shown: number; pollTimes?: number[]; shownIds?: string[] }>;
  doubleAccepts: number;
  overlaps: number;
  calls: number;
};
type Accept = { driverId: string; offerId: string; at: number; result: string; shownAt: number | null };
const stats = async (detail = true): Promise<Stats> =>
  (await (await fetch(`${platform.url}/__control/stats${detail ? "?polls=1&shown=1" : ""}`, { signal: AbortSignal.timeout(REQUEST_MS) })).json()) as Stats;
const accepts = async (): Promise<Accept[]> =>
  ((await (await fetch(`${platform.url}/__control/accepts`, { signal: AbortSignal.timeout(REQUEST_MS) })).json()) as { accepts: Accept[] }).accepts;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quarter = 15 * 60_000;
const offerAt = (station: string, hoursAhead: number, payCents: number, lifetime = 60_000) => {
  const startsAt = Math.ceil((Date.now() + hoursAhead * 3_600_000) / quarter) * quarter;
  return { app: "flex", serviceAreaId: station, startsAt, endsAt: startsAt + 3 * 3_600_000, payCents, expiresInMs: lifetime };
};

/**
 * Offers each engine recorded in its driver's history, read as the driver reads them (the
 * dashboard's offers page counts them), a few drivers at a time. The history records an offer once
 * (unique per offer), so a count below the offers shown is an offer lost.
 */
async function recordedCounts(group: BenchDriver[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  const readOne = async (d: BenchDriver) => {
    const res = await fetch(`${worker.url}/api/driver/offers?pageSize=20`, {
      headers: { Authorization: `Bearer ${d.token}` },
      signal: AbortSignal.timeout(REQUEST_MS),
    });
    if (!res.ok) throw new Error(`offers of driver ${d.userId}: ${res.status} ${await res.text()}`);
    out.set(d.userId, ((await res.json()) as { total: number }).total);
  };
  for (let i = 0; i < group.length; i += 20) await Promise.all(group.slice(i, i + 20).map(readOne));
  return out;
}

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

// ---- Unit costs (docs/capacity.md, bench/engine-units.ts) ----

/** The offer rate a searching driver-day is priced at (the bench's own rate is printed beside it). */
const ASSUMED_OFFERS_PER_MINUTE = Number(arg("offers-per-minute") ?? 2);
const unitRows: EngineUnits[] = [];
const num = (x: number, digits = 2) => x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Dashboard reads done one after another, each the driver dashboard's 3 s poll: GET /api/driver/offers and GET /api/driver/engine. */
const DASHBOARD_READS = short ? 20 : 60;

/**
 * The driver dashboard's poll, with one engine running (the engine route asks the running engine
 * its status): the Worker's counters (worker.usage) before and after, per read; the workerd CPU
 * less what the engine's own polls in the meantime cost (at `cpuPerPollMs`).
 */
async function dashboardUnits(cpuPerPollMs: number) {
  const d = drivers[0]!;
  await switchEngines([d], true);
  await sleep(3000);
  const headers = { Authorization: `Bearer ${d.token}` };
  const get = async (path: string) => {
    const res = await fetch(`${worker.url}${path}`, { headers, signal: AbortSignal.timeout(REQUEST_MS) });
    if (!res.ok) throw new Error(`GET ${path} answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  };
  await get("/api/driver/offers?page=1&pageSize=20");
  await sleep(500);
  const before = workerLog.last("worker.usage");
  const pollsBefore = (await stats(false)).drivers[d.driverId]?.polls ?? 0;
  const cpuFrom = workerdCpuSeconds();
  for (let k = 0; k < DASHBOARD_READS; k++) {
    await get("/api/driver/offers?page=1&pageSize=20");
    await get("/api/driver/engine");
  }
  const cpu = workerdCpuSeconds() - cpuFrom;
  const pollsDuring = ((await stats(false)).drivers[d.driverId]?.polls ?? 0) - pollsBefore;
  await sleep(1000);
  const diff = difference(before, workerLog.last("worker.usage"));
  await switchEngines([d], false);
  const read = {
    reads: DASHBOARD_READS,
    requests: per(diff.requests ?? 0, DASHBOARD_READS),
    d1Reads: per(diff.d1Reads ?? 0, DASHBOARD_READS),
    d1Writes: per(diff.d1Writes ?? 0, DASHBOARD_READS),
    d1RowsRead: per(diff.d1RowsRead ?? 0, DASHBOARD_READS),
    d1UnmeteredReads: per(diff.d1UnmeteredReads ?? 0, DASHBOARD_READS),
    doCalls: per(diff["doCalls.CAPTURE_SESSION"] ?? 0, DASHBOARD_READS),
    workerdCpuMs: per(Math.max(0, cpu * 1000 - pollsDuring * cpuPerPollMs), DASHBOARD_READS),
  };
  console.log(
    `\n(d) the driver dashboard's 3 s poll (GET /api/driver/offers + GET /api/driver/engine), ${DASHBOARD_READS} reads one at a time, one engine running\n` +
      "| per dashboard read | requests | D1 statements read / write | D1 rows read (meta) | Durable Object calls | workerd CPU (upper bound) |\n|---|---|---|---|---|---|\n" +
      `| measured | ${num(read.requests)} | ${num(read.d1Reads)} / ${num(read.d1Writes)} | ${num(read.d1RowsRead)} (${num(read.d1UnmeteredReads)} of the reads through raw(), unmetered) | ${num(read.doCalls)} | ${fmt(read.workerdCpuMs)} |`,
  );
  return read;
}

/** A password sign-in (the demo driver's, through /api/auth/sign-in): its D1 statements, rate-limit windows included. */
async function signInUnits() {
  const SIGN_INS = 3;
  await sleep(300);
  const before = workerLog.last("worker.usage");
  for (let i = 0; i < SIGN_INS; i++) await signInDriver(worker.url);
  await sleep(500);
  const diff = difference(before, workerLog.last("worker.usage"));
  const each = {
    signIns: SIGN_INS,
    d1Reads: per(diff.d1Reads ?? 0, SIGN_INS),
    d1Writes: per(diff.d1Writes ?? 0, SIGN_INS),
    d1RowsWritten: per(diff.d1RowsWritten ?? 0, SIGN_INS),
  };
  console.log(
    `\n(e) a password sign-in, ${SIGN_INS} one at a time: D1 statements read / write ${num(each.d1Reads)} / ${num(each.d1Writes)}, rows written (meta) ${num(each.d1RowsWritten)}`,
  );
  return each;
}
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
let failed = false;

try {
  // ---- (a) Reaction, at a light load: a few drivers, one matching offer at a time ----
  let correct = true;
  let timely = true;
  if (scaleOnly) console.log("\n(a) reaction: skipped (--scale-only)");
  else {
    const reactionDrivers = drivers.slice(0, REACTION_DRIVERS);
    await switchEngines(reactionDrivers, true);
    await sleep(3000);
    const sinceA = Date.now();
    for (let k = 0; k < REACTION_OFFERS; k++) {
      const d = reactionDrivers[k % reactionDrivers.length]!;
      // A station of this driver that only it (among the reaction drivers) may share with few others; pay every filter takes.
      await control("offers", { offers: [offerAt(d.stations[k % 3]!, 6 + (k % 40), 9900)] });
      await sleep(short ? 400 : 700);
    }
    await sleep(3000);
    await switchEngines(reactionDrivers, false);
    const reactions = (await accepts())
      .filter((a) => a.at >= sinceA && a.shownAt !== null && a.result !== "rejected")
      .map((a) => a.at - a.shownAt!)
      .filter((ms) => ms >= 0);
    // Each offer's first accept is the race that matters; later ones are other drivers finding it gone.
    console.log(`\n(a) reaction, ${REACTION_DRIVERS} drivers, ${REACTION_OFFERS} offers: ${reactions.length} accepts`);
    const p50 = reactions.length ? percentile(reactions, 50) : Number.NaN;
    const p95 = reactions.length ? percentile(reactions, 95) : Number.NaN;
    console.log(
      `| reaction (answer sent → accept arrives) | p50 | p95 | budget |\n|---|---|---|---|\n| ${reactions.length} accepts | ${fmt(p50)} | ${fmt(p95)} | p95 ≤ 25 ms |`,
    );
    correct = reactions.length > 0;
    timely = p95 <= 25;
  }

  // ---- (b) Scale: each size's row is printed as soon as it is measured ----
  const failedPolls: string[] = [];
  await control("config", { offersPerMinute: short ? 30 : 12 });
  console.log(
    `\n(b) scale: ${seconds} s at a ${INTERVAL_MS / 1000} s interval, the platform allowing one offers call per 1.5 s per driver\n` +
      "| drivers | switch on / off | polls (of the ideal) | on time (± 500 ms) | over the limit | double / overlapping accepts | offers shown / not recorded | CPU per poll: Worker / bench + fake platform |\n|---|---|---|---|---|---|---|---|",
  );
  for (const n of sizes) {
    const group = drivers.slice(0, n);
    const sinceSwitch = Date.now();
    const before = await within("reading the platform's stats", REQUEST_MS, stats());
    const onMs = await switchEngines(group, true);
    await sleep(5000);
    const from = Date.now();
    const cpuFrom = { worker: workerCpuSeconds(), own: ownCpuSeconds(), workerd: workerdCpuSeconds() };
    const [statsFrom, bytesFrom] = [await within("reading the platform's stats", REQUEST_MS, stats(false)), d1Bytes(state)];
    await sleep(seconds * 1000);
    const to = Date.now();
    const cpu = { worker: workerCpuSeconds() - cpuFrom.worker, own: ownCpuSeconds() - cpuFrom.own, workerd: workerdCpuSeconds() - cpuFrom.workerd };
    const [statsTo, bytesTo] = [await within("reading the platform's stats", REQUEST_MS, stats(false)), d1Bytes(state)];
    const offMs = await switchEngines(group, false);
    await sleep(4000);
    const after = await within("reading the platform's stats", REQUEST_MS, stats());
    let gaps = 0;
    let onTime = 0;
    let overLimit = 0;
    let polls = 0;
    for (const d of group) {
      const s = after.drivers[d.driverId];
      if (!s) continue;
      overLimit += s.overLimit - (before.drivers[d.driverId]?.overLimit ?? 0);
      const times = (s.pollTimes ?? []).filter((t) => t >= from && t <= to);
      polls += times.length;
      for (let i = 1; i < times.length; i++) {
        gaps++;
        if (Math.abs(times[i]! - times[i - 1]! - INTERVAL_MS) <= ON_TIME_MS) onTime++;
      }
    }
    const recorded = await recordedCounts(group);
    let shown = 0;
    let unrecorded = 0;
    for (const d of group) {
      const ids = after.drivers[d.driverId]?.shownIds ?? [];
      shown += ids.length;
      unrecorded += Math.max(0, ids.length - (recorded.get(d.userId) ?? 0));
    }
    const doubles = after.doubleAccepts - before.doubleAccepts;
    const overlaps = after.overlaps - before.overlaps;
    const share = gaps ? onTime / gaps : 0;
    const expected = (n * seconds * 1000) / INTERVAL_MS;
    console.log(
      `| ${n} | ${(onMs / 1000).toFixed(1)} s / ${(offMs / 1000).toFixed(1)} s | ${polls} (${pct(polls / expected)} of ${Math.round(expected)}) | ${pct(share)} | ${overLimit} | ${doubles} / ${overlaps} | ${shown} / ${unrecorded} | ${polls ? `${fmt((cpu.worker * 1000) / polls)} / ${fmt((cpu.own * 1000) / polls)}` : "–"} |`,
    );
    const mine = new Set(group.map((d) => d.driverId));
    const wonInWindow = (await accepts()).filter((a) => mine.has(a.driverId) && a.result === "won" && a.at >= from && a.at <= to).length;
    let shownInWindow = 0;
    for (const d of group) shownInWindow += (statsTo.drivers[d.driverId]?.shown ?? 0) - (statsFrom.drivers[d.driverId]?.shown ?? 0);
    unitRows.push(
      engineUnits({
        drivers: n,
        windowMs: to - from,
        intervalMs: INTERVAL_MS,
        assumedOffersPerMinute: ASSUMED_OFFERS_PER_MINUTE,
        polls,
        shown: shownInWindow,
        calls: statsTo.calls - statsFrom.calls,
        workerdCpuSeconds: cpu.workerd,
        usage: sum(workerLog.within("capture.usage", from, to)),
        storage: storageGrowth(workerLog.within("capture.usage", from, to)),
        bytesFrom,
        bytesTo,
        won: wonInWindow,
      }),
    );
    const kinds = new Map<string, number>();
    for (const l of workerLog.lines)
      if (l.fields.msg === "capture.backoff" && l.at >= sinceSwitch) kinds.set(String(l.fields.kind), (kinds.get(String(l.fields.kind)) ?? 0) + 1);
    failedPolls.push(`N = ${n}: ${kinds.size ? [...kinds].map(([kind, k]) => `${kind} ${k}`).join(", ") : "none"}`);
    if (overLimit !== 0 || doubles !== 0 || overlaps !== 0 || unrecorded !== 0 || polls === 0) correct = false;
    if (n === 500 && share < 0.95) timely = false;
  }
  console.log(`\nswitch requests retried (network error, time-out or 5xx): ${retried}`);
  // An offers answer the engine never got (a time-out on a starved runtime) was shown by the platform and cannot be recorded.
  console.log(`platform calls that failed and backed off, by kind (capture.backoff): ${failedPolls.join("; ")}`);
  printEngineUnits(unitRows, INTERVAL_MS, ASSUMED_OFFERS_PER_MINUTE);
  const dashboard = await dashboardUnits(unitRows.at(-1)?.perPoll.workerdCpuMs ?? 0);
  const signIn = await signInUnits();
  const unitsFile = saveUnits("engine", { intervalMs: INTERVAL_MS, assumedOffersPerMinute: ASSUMED_OFFERS_PER_MINUTE, sizes: unitRows, dashboard, signIn });
  console.log(`\nunit costs written to ${unitsFile} (npm run bench:capacity reads them)`);
  console.log("\nbudgets: reaction p95 ≤ 25 ms; ≥ 95 % on time at N = 500; 0 over the limit; 0 double or overlapping; 0 unrecorded");
  // Correctness fails every run; time budgets fail only the full run (a short run on a busy machine prints them).
  failed = !correct || (!short && !timely);
  if (!(await import("./engine-pacing.ts")).pacingBench({ short })) failed = true;
} finally {
  worker.stop();
  await platform.close();
}
process.exit(failed ? 1 : 0);
