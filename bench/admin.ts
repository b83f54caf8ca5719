/**
 * `npm run bench:admin`: the admin console's budget (docs/admin.md) — the dashboard's figures, its
 * charts and the users page over 100,000 drivers with a year of payments, offers and messages,
 * median ≤ 50 ms each on the local runtime, through the built Worker, measured from the client.
 *
 *   --drivers N     extra drivers to seed, with a year of activity each (default 100000; 2000 with --short)
 *   --runs N        requests per query shape (default 30; 3 with --short)
 *   --port P        the Worker's port (default: the first free port from 8851)
 *   --short         the small run: figures and budget lines printed, the budget not enforced
 *   --skip-build    reuse the last private build copy (or the one --build-dir names)
 *   --build-dir D   a build copy made by someone else (bench/short.ts builds once for all benches)
 *   --skip-seed     reuse the last seeded state
 */
import { benchOptions, flag, freshState, median, numberArg, percentile, prepareBuild, signInOwner, startWorker } from "./harness.ts";
import { difference, per, saveUnits, WorkerLog } from "./units.ts";

const options = await benchOptions(8851);
const SHORT = options.short;
const DRIVERS = numberArg("drivers", SHORT ? 2_000 : 100_000);
const RUNS = numberArg("runs", SHORT ? 3 : 30);
const STATE = `.wrangler/bench-admin-state${SHORT ? "-short" : ""}`;
const BUDGET_MS = 50;
const ZONE = "America/New_York";

const DIR = prepareBuild(options, ".wrangler/bench-admin-build");
if (!flag("skip-seed")) freshState(STATE, DRIVERS);
// USAGE_LOG=1: each request's D1 statements, read from the Worker's worker.usage lines (bench/units.ts).
const workerLog = new WorkerLog();
const worker = await startWorker({ dir: DIR, port: options.port, state: STATE, vars: { USAGE_LOG: "1" }, onLog: workerLog.onLog });
const settle = () => new Promise((r) => setTimeout(r, 300));
// The seeded owner, signed in as a person does: password, then the TOTP challenge (bench/harness.ts).
const headers = { Authorization: `Bearer ${(await signInOwner(worker.url)).idToken}` };

async function timed(path: string): Promise<{ ms: number; body: unknown }> {
  const started = performance.now();
  const res = await fetch(`${worker.url}${path}`, { headers });
  const text = await res.text();
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 200)}`);
  return { ms, body: JSON.parse(text) };
}

const day = (offset: number) => new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);
const range = (days: number) => `from=${day(days - 1)}&to=${day(0)}&timeZone=${encodeURIComponent(ZONE)}`;

type Shape = [group: string, name: string, path: (run: number) => string];
const shapes: Shape[] = [
  ["dashboard figures", "last 30 days (the default)", () => `/api/admin/dashboard?${range(30)}`],
  ["dashboard figures", "today", () => `/api/admin/dashboard?${range(1)}`],
  ["dashboard figures", "last 90 days", () => `/api/admin/dashboard?${range(90)}`],
  ["dashboard figures", "last 12 months", () => `/api/admin/dashboard?${range(365)}`],
  ["dashboard charts", "last 30 days (the default)", () => `/api/admin/dashboard/series?${range(30)}`],
  ["dashboard charts", "last 90 days", () => `/api/admin/dashboard/series?${range(90)}`],
  ["dashboard charts", "last 12 months", () => `/api/admin/dashboard/series?${range(365)}`],
  ["users page", "drivers, newest first (the default)", () => "/api/admin/users?app=flex&page=1&pageSize=20"],
  [
    "users page",
    "region + good standing + system on",
    () => "/api/admin/users?app=flex&region=Miami&region=Tampa&goodStanding=yes&system=on&page=1&pageSize=20",
  ],
  ["users page", "created in a range, 100 rows", () => `/api/admin/users?app=flex&createdFrom=${day(180)}&createdTo=${day(90)}&timeZone=${ZONE}&pageSize=100`],
  ["users page", "text search", (i) => `/api/admin/users?app=flex&search=${["garc", "maría", "miami10", "ana l"][i % 4]}`],
  ["users page", "phone search", (i) => `/api/admin/users?app=flex&search=${6460000000 + i * 997}`],
  ["users page", "sort by name, page 50", () => "/api/admin/users?app=flex&sort=name&dir=asc&page=50&pageSize=20"],
  ["users page", "everyone, sort by expiration", () => "/api/admin/users?app=flex&role=all&sort=expirationAt&dir=desc"],
];

// Warm the runtime and SQLite's page cache, as a running Worker would be.
for (const [, , path] of shapes) await timed(path(0));

const byGroup = new Map<string, number[]>();
const lines: string[] = [];
const statements: Record<string, { d1Reads: number; d1Writes: number; d1RowsRead: number; medianMs: number }> = {};
let drivers = 0;
for (const [group, name, path] of shapes) {
  const times: number[] = [];
  await settle();
  const before = workerLog.last("worker.usage");
  for (let i = 0; i < RUNS; i++) {
    const r = await timed(path(i));
    times.push(r.ms);
    if (group === "dashboard figures" && drivers === 0) drivers = (r.body as { drivers: number }).drivers;
  }
  await settle();
  const used = difference(before, workerLog.last("worker.usage"));
  const each = { d1Reads: per(used.d1Reads ?? 0, RUNS), d1Writes: per(used.d1Writes ?? 0, RUNS), d1RowsRead: per(used.d1RowsRead ?? 0, RUNS) };
  statements[`${group}: ${name}`] = { ...each, medianMs: median(times) };
  byGroup.set(group, [...(byGroup.get(group) ?? []), ...times]);
  lines.push(
    `| ${group} | ${name} | ${median(times).toFixed(1)} ms | ${percentile(times, 95).toFixed(1)} ms | ${each.d1Reads.toFixed(1)} / ${each.d1Writes.toFixed(1)} |`,
  );
}
saveUnits("admin", { drivers, runs: RUNS, perRequest: statements });
worker.stop();

console.log(
  `\nAdmin console over ${drivers.toLocaleString("en-US")} drivers with a year of activity (${RUNS} requests per shape, local runtime, client-measured)\n`,
);
console.log("| page | request | median | p95 | D1 statements read / write (sign-in check included) |\n|---|---|---|---|---|");
for (const l of lines) console.log(l);
let over = false;
console.log("");
for (const [group, times] of byGroup) {
  const m = median(times);
  over ||= m > BUDGET_MS;
  console.log(
    `${group}: median ${m.toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms → budget ≤ ${BUDGET_MS} ms ${m <= BUDGET_MS ? "within" : "OVER"}`,
  );
}
if (over && !SHORT) process.exit(1);
