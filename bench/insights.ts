/**
 * `npm run bench:insights`: the what-if of the insights page (/flex/insights) over 30 days of a busy
 * driver, 20,000 offers and more (bench/busy-history.ts) — goal ≤ 100 ms.
 *
 * Two figures:
 *   (a) in this process (Node): replayHistory and whatIf over the generated history, p50 and p95;
 *       and the replay of the history under the filters that recorded it must give it back.
 *   (b) on the Worker: the production build under `wrangler dev`, the driver's offers written into
 *       their CaptureSession's own SQLite (writeHistory), `POST /api/driver/insights/what-if` asked
 *       N times: p50 and p95 of the server's `tookMs` and of the round trip, after a first request
 *       (the object just started) timed apart; and the server's `tookMs` when the month is read afresh (a 7-day what-if asked
 *       between: the object keeps one period's offers for a minute); and the round trip of the
 *       page's report (GET /api/driver/insights, 30 days). A build without that route answers 404: (b) is then reported as not served and (a)
 *       stands alone.
 *
 * The driver is seeded straight into the bench's D1 (user, the session's refresh-token family,
 * stations, filters) and their history into their object's database and its ID token signed with the build's local key, as
 * bench/engine.ts does.
 *
 *   --offers-per-day N  (default 700; 70 with --short)   --days N (default 30)   --runs N (default 30; 5 with --short)
 *   --node-only  (a) alone: no build, no Worker
 *   --port P  the Worker's port (default: the first free port from 8861)
 *   --short, --skip-build, --build-dir D (bench/harness.ts)
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { serialize } from "node:v8";
import { importJWK, SignJWT } from "jose";
import { LOCAL_RUNTIME_ENV } from "../scripts/local-runtime.ts";
import type { HistoryOffer } from "../src/shared/insights.ts";
import { benchOptions, devVarsOf, flag, freshState, median, numberArg, percentile, prepareBuild, startWorker } from "./harness.ts";

// The shared modules name their imports without ".ts", as the bundler wants: let Node find them.
await import("../scripts/seed/resolve-extensionless.ts");
const { BUSY_FILTERS, BUSY_STATIONS, busyHistory, WHAT_IF_FILTERS } = await import("./busy-history.ts");
const { replayHistory } = await import("../src/shared/replay.ts");
const { whatIf } = await import("../src/worker/platform/history-insights.ts");

const options = await benchOptions(8861);
const SHORT = options.short;
const DAYS = numberArg("days", 30);
const OFFERS_PER_DAY = numberArg("offers-per-day", SHORT ? 70 : 700);
const RUNS = numberArg("runs", SHORT ? 5 : 30);
const BUDGET_MS = 100;
const STATE = `.wrangler/bench-insights-state${SHORT ? "-short" : ""}`;
const USER_ID = 4_000_000;

for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(130));

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
/** Wall times of each run, and the CPU of all of them over their count (the wall clock of a shared machine waits for a core; this does not). */
const timeRuns = (runs: number, work: () => void) => {
  const cpuFrom = process.cpuUsage();
  const times = Array.from({ length: runs }, () => {
    const started = performance.now();
    work();
    return performance.now() - started;
  });
  const cpu = process.cpuUsage(cpuFrom);
  return Object.assign(times, { cpuMs: (cpu.user + cpu.system) / 1000 / runs });
};
let correct = true;
let timely = true;

// ---- (a) In this process ----
const generatedAt = Date.now();
const history = busyHistory({ days: DAYS, offersPerDay: OFFERS_PER_DAY, now: generatedAt });
const statuses = { won: 0, disliked: 0, gone: 0 };
for (const o of history) statuses[o.status]++;
console.log(
  `A busy driver's ${DAYS} days: ${history.length} offers (${statuses.won} won, ${statuses.disliked} disliked, ${statuses.gone} gone) at ${BUSY_STATIONS.length} stations in ${new Set(BUSY_STATIONS.map((s) => s.timeZone)).size} zones`,
);

const same = replayHistory(history, BUSY_FILTERS);
const differing = history.filter((o, i) => {
  const d = same.decisions[i]!;
  return o.status === "disliked" ? d.status !== "disliked" || d.reasons.join() !== o.reasons.join() : d.status !== o.status;
}).length;
console.log(`replayed under the filters that recorded it: ${differing} decisions differ (must be 0)`);
if (differing !== 0) correct = false;

// The first runs read each zone's hours through Intl (zoned-time.ts) and warm the JIT: timed apart.
const cold = timeRuns(1, () => replayHistory(history, WHAT_IF_FILTERS, { decisions: false })).cpuMs;
const replayMs = timeRuns(RUNS, () => replayHistory(history, WHAT_IF_FILTERS, { decisions: false }));
const request = { days: 30 as const, filters: WHAT_IF_FILTERS };
const whatIfMs = timeRuns(RUNS, () => whatIf(history, request, generatedAt));
const answer = whatIf(history, request, generatedAt);
console.log(
  `\n(a) in Node, ${RUNS} runs each (the first replay, cold: ${fmt(cold)} of CPU)\n| what | p50 | p95 | CPU per run | budget |\n|---|---|---|---|---|\n` +
    `| replayHistory, ${history.length} offers | ${fmt(median(replayMs))} | ${fmt(percentile(replayMs, 95))} | ${fmt(replayMs.cpuMs)} | ≤ ${BUDGET_MS} ms |\n` +
    `| whatIf (30 days) | ${fmt(median(whatIfMs))} | ${fmt(percentile(whatIfMs, 95))} | ${fmt(whatIfMs.cpuMs)} | ≤ ${BUDGET_MS} ms |`,
);
console.log(`what-if answer: ${JSON.stringify({ offers: answer.offers, actual: answer.actual, replay: answer.replay })}`);
// Held to the budget by its CPU: this machine's wall clock also counts the waits for a core.
if (whatIfMs.cpuMs > BUDGET_MS) timely = false;

if (flag("node-only")) {
  console.log("\n(b) on the Worker: skipped (--node-only)");
  process.exit(!correct || (!SHORT && !timely) ? 1 : 0);
}

// ---- (b) On the Worker ----
const q = (v: string | number | null) => (v === null ? "NULL" : typeof v === "number" ? String(v) : `'${v.replace(/'/g, "''")}'`);

/** The driver, their session, stations and filters, as SQL for the bench's D1. */
function seedSql(family: string, phone: string, now: number): string {
  const lines = [
    `INSERT OR IGNORE INTO stations (app, id, name, city, time_zone, updated_at) VALUES ${BUSY_STATIONS.map((s) => `('flex', ${q(s.id)}, ${q(s.name)}, 'Bench', ${q(s.timeZone)}, ${now})`).join(", ")};`,
    `INSERT INTO users (id, app, phone, phone_verified, name, invite_code, expiration_at, good_standing, account_connected, setup_complete, status, sms_opt_out) VALUES (${USER_ID}, 'flex', ${q(phone)}, 1, 'Bench Busy Driver', 'BENCHBUSY', ${now + 7 * 86_400_000}, 1, 1, 1, 'stop', 1);`,
    `INSERT INTO refresh_tokens (token_hash, family, user_id, expires_at, created_at) VALUES (${q(randomBytes(32).toString("hex"))}, ${q(family)}, ${USER_ID}, ${now + 30 * 86_400_000}, ${now});`,
    `INSERT INTO driver_filters (user_id, stations, min_pay_cents, min_hourly_cents, arrival_buffer_minutes, min_duration_minutes, max_duration_minutes, schedule, daily_cap_minutes, updated_at) VALUES (${USER_ID}, ${q(JSON.stringify(BUSY_FILTERS.stations))}, ${BUSY_FILTERS.minPayCents}, ${BUSY_FILTERS.minHourlyCents}, ${BUSY_FILTERS.arrivalBufferMinutes}, ${BUSY_FILTERS.minDurationMinutes}, ${BUSY_FILTERS.maxDurationMinutes}, ${q(JSON.stringify(BUSY_FILTERS.schedule))}, ${BUSY_FILTERS.dailyCapMinutes}, ${now});`,
  ];
  return lines.join("\n");
}

/**
 * Writes the offers into the driver's CaptureSession database under the state's Durable Object
 * storage (the only object of the class there), as offer-history.ts's `record` writes them, with
 * its per-status counters, once the Worker at `url` has stopped answering.
 */
async function writeHistory(state: string, rows: HistoryOffer[], url: string) {
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`${url}/api/status/health`, { signal: AbortSignal.timeout(500) });
      await new Promise((r) => setTimeout(r, 100));
    } catch {
      break;
    }
  }
  await new Promise((r) => setTimeout(r, 500));
  const base = `${state}/v3/do`;
  const folder = readdirSync(base).find((f) => f.endsWith("-CaptureSession"));
  const files = folder ? readdirSync(`${base}/${folder}`).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite") : [];
  if (files.length !== 1) throw new Error(`expected one CaptureSession database under ${base}, found ${files.length}`);
  const db = new DatabaseSync(`${base}/${folder}/${files[0]}`);
  try {
    const insert = db.prepare(
      "INSERT INTO offers (platform_offer_id, app, station_id, station_name, time_zone, status, reasons, pay_cents, starts_at, ends_at, block_id, forfeited_at, arrived_at, seen_at, shared_at) VALUES (?, 'flex', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
    );
    const counts = { won: 0, disliked: 0, gone: 0 };
    db.exec("BEGIN");
    for (const o of rows) {
      const reasons = o.reasons.length > 0 ? JSON.stringify(o.reasons) : null;
      insert.run(
        o.platformOfferId,
        o.stationId,
        o.stationName,
        o.timeZone,
        o.status,
        reasons,
        o.payCents,
        o.startsAt,
        o.endsAt,
        o.blockId,
        o.forfeitedAt,
        o.arrivedAt,
        o.seenAt,
      );
      counts[o.status]++;
    }
    db.prepare("INSERT OR REPLACE INTO _cf_KV (key, value) VALUES ('history.counts', ?)").run(serialize(counts));
    db.exec("COMMIT");
  } finally {
    db.close();
  }
}

const dir = prepareBuild(options, ".wrangler/bench-insights-build");
freshState(STATE);
const vars = devVarsOf(dir);
const family = `bench-${randomBytes(8).toString("hex")}`;
const phone = "+16463999001";
mkdirSync(".seed", { recursive: true });
const file = `.seed/bench-insights-${process.pid}.sql`;
writeFileSync(file, seedSql(family, phone, generatedAt));
console.log(`\nSeeding the driver into D1…`);
// Quiet: wrangler prints every statement's result.
const seeded = spawnSync("wrangler", ["d1", "execute", "DB", "--local", `--persist-to=${STATE}`, `--file=${file}`], {
  stdio: ["ignore", "ignore", "inherit"],
  env: { ...process.env, ...LOCAL_RUNTIME_ENV },
});
rmSync(file, { force: true });
if (seeded.status !== 0) throw new Error(`seeding the driver failed (wrangler exited with ${seeded.status})`);

const key = await importJWK(JSON.parse(vars.JWT_PRIVATE_JWK!) as Parameters<typeof importJWK>[0], "ES256");
const iat = Math.floor(Date.now() / 1000);
const idToken = await new SignJWT({ sid: family, phone_number: phone, phone_number_verified: true, app: "flex", is_admin: false })
  .setProtectedHeader({ alg: "ES256", typ: "id+jwt" })
  .setIssuer("blockpilot")
  .setAudience("blockpilot-app")
  .setSubject(String(USER_ID))
  .setIssuedAt(iat)
  .setExpirationTime(iat + 3600)
  .sign(key);

// The driver's history lives in their CaptureSession's own SQLite (src/worker/platform/offer-history.ts),
// which only the engine writes: the Worker makes the object (the offers page opens its history),
// then, with the Worker stopped, the offers go into that object's database file.
{
  const first = await startWorker({ dir, port: options.port, state: STATE });
  try {
    const res = await fetch(`${first.url}/api/driver/offers?page=1`, { headers: { Authorization: `Bearer ${idToken}` } });
    if (!res.ok) throw new Error(`the offers page answered ${res.status} before the history was written`);
  } finally {
    first.stop();
  }
  await writeHistory(STATE, history, first.url);
  console.log(`${history.length} offers written into the driver's CaptureSession storage`);
}
const worker = await startWorker({ dir, port: options.port, state: STATE });
try {
  type Answer = { status: number; ms: number; body: { tookMs?: number; offers?: number; replay?: { blocks: number } } | null; text: string };
  // The product allows a driver 60 what-ifs a minute (RATE_LIMITS.whatIfPerUser) and the full run
  // asks more: a refusal waits out its Retry-After and asks again, outside the timing.
  const ask = async (asked: object = request): Promise<Answer> => {
    let started = performance.now();
    const post = () =>
      fetch(`${worker.url}/api/driver/insights/what-if`, {
        method: "POST",
        headers: { Authorization: `Bearer ${idToken}`, "Content-Type": "application/json" },
        body: JSON.stringify(asked),
        signal: AbortSignal.timeout(60_000),
      });
    let res = await post();
    for (let waits = 0; res.status === 429 && waits < 3; waits++) {
      await res.arrayBuffer();
      const seconds = Number(res.headers.get("Retry-After") ?? 60);
      console.log(`(the what-if limit: waiting ${seconds} s)`);
      await new Promise((r) => setTimeout(r, (seconds + 0.5) * 1000));
      started = performance.now();
      res = await post();
    }
    const text = await res.text();
    const ms = performance.now() - started;
    let body: Answer["body"] = null;
    try {
      body = JSON.parse(text) as Answer["body"];
    } catch {
      // not JSON: reported below
    }
    return { status: res.status, ms, body, text };
  };
  // The driver is signed in and their offers are there: the dashboard's offers page counts them.
  const page = await fetch(`${worker.url}/api/driver/offers?page=1`, { headers: { Authorization: `Bearer ${idToken}` } });
  const total = page.ok ? ((await page.json()) as { total: number }).total : null;
  console.log(`the driver's offers page counts ${total ?? `nothing (${page.status})`} offers`);
  if (total !== history.length) correct = false;
  const first = await ask();
  if (first.status === 404) {
    console.log(`\n(b) on the Worker: POST /api/driver/insights/what-if is not served by this build (404); the figure of (a) stands alone`);
  } else if (first.status !== 200 || typeof first.body?.tookMs !== "number") {
    correct = false;
    console.log(`\n(b) on the Worker: the what-if answered ${first.status}: ${first.text.slice(0, 300)}`);
  } else {
    const answers = [];
    for (let i = 0; i < RUNS; i++) answers.push(await ask());
    // The object keeps the period it read for a minute while nothing new is recorded; a 7-day
    // what-if in between makes it read the month afresh for the next one (the first try of a period).
    const afresh = [];
    for (let i = 0; i < RUNS; i++) {
      await ask({ ...request, days: 7 });
      afresh.push(await ask());
    }
    const fresh = afresh.filter((a) => a.status === 200 && typeof a.body?.tookMs === "number").map((a) => a.body!.tookMs!);
    if (fresh.length < afresh.length) correct = false;
    // The page's first read: the report over the month (earnings, market, findings), read afresh each time.
    const reportMs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      const res = await fetch(`${worker.url}/api/driver/insights?days=30`, { headers: { Authorization: `Bearer ${idToken}` } });
      await res.arrayBuffer();
      if (res.ok) reportMs.push(performance.now() - started);
      else correct = false;
    }
    const failed = answers.filter((a) => a.status !== 200);
    if (failed.length > 0) correct = false;
    const ok = answers.filter((a) => a.status === 200 && typeof a.body?.tookMs === "number");
    const server = ok.map((a) => a.body!.tookMs!);
    const trip = ok.map((a) => a.ms);
    const offers = first.body.offers ?? 0;
    // The Worker's 30 days end a little later than the history's: a few of the oldest fall out.
    if (offers < answer.offers * 0.95 || (first.body.replay?.blocks ?? 0) === 0) correct = false;
    console.log(
      `\n(b) on the Worker, ${ok.length} of ${RUNS} answered (${failed.length} failed); the first what-if, the object just started: ${fmt(first.ms)} round trip, ${fmt(first.body.tookMs)} on the server\n` +
        `| what-if, ${offers} offers | p50 | p95 | budget |\n|---|---|---|---|\n` +
        `| server's tookMs, the period kept from the try before | ${fmt(median(server))} | ${fmt(percentile(server, 95))} | ≤ ${BUDGET_MS} ms |\n` +
        `| server's tookMs, the month read afresh | ${fmt(median(fresh))} | ${fmt(percentile(fresh, 95))} | ≤ ${BUDGET_MS} ms |\n` +
        `| round trip, the period kept | ${fmt(median(trip))} | ${fmt(percentile(trip, 95))} | |\n` +
        `| GET /api/driver/insights (the report), round trip | ${fmt(median(reportMs))} | ${fmt(percentile(reportMs, 95))} | |`,
    );
    if (median(server) > BUDGET_MS || median(fresh) > BUDGET_MS) timely = false;
  }
} finally {
  worker.stop();
}
console.log(`\nbudget: the what-if over ${DAYS} days ≤ ${BUDGET_MS} ms (p50); the replay of a history under its own filters gives it back`);
// Correctness fails every run; the time budget only the full run (a short run on a busy machine prints it).
process.exit(!correct || (!SHORT && !timely) ? 1 : 0);
