/**
 * `npm run bench:audience`: the review page (one page of drivers plus the exact count) over
 * 100,000 Flex drivers, through the built Worker on the local runtime, against the budget of
 * docs/architecture.md, budgets (median ≤ 50 ms), printed beside what the old product's whole-table download
 * (all-users-table, every row) costs for the same data.
 *
 *   --drivers N     extra drivers to seed (default 100000; 2000 with --short)
 *   --runs N        requests per query shape (default 40; 5 with --short)
 *   --port P        the Worker's port (default: the first free port from 8792)
 *   --short         the small run of `npm test`: the budget line is printed, not enforced
 *   --skip-build    reuse the last private build copy (or the one --build-dir names)
 *   --skip-seed     reuse the last seeded state
 */
import { gzipSync } from "node:zlib";
import { benchOptions, flag, freshState, median, numberArg, percentile, prepareBuild, signInOwner, startWorker } from "./harness.ts";

const options = await benchOptions(8792);
const DRIVERS = numberArg("drivers", options.short ? 2_000 : 100_000);
const RUNS = numberArg("runs", options.short ? 5 : 40);
const STATE = `.wrangler/bench-audience-state${options.short ? "-short" : ""}`;
const BUDGET_MS = 50;

const dir = prepareBuild(options, ".wrangler/bench-audience-build");
if (!flag("skip-seed")) freshState(STATE, DRIVERS);
const worker = await startWorker({ dir, port: options.port, state: STATE });
const { idToken } = await signInOwner(worker.url);
const headers = { Authorization: `Bearer ${idToken}` };

async function timed(path: string): Promise<{ ms: number; bytes: number; body: unknown }> {
  const started = performance.now();
  const res = await fetch(`${worker.url}${path}`, { headers });
  const text = await res.text();
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 200)}`);
  return { ms, bytes: Buffer.byteLength(text), body: JSON.parse(text) };
}

// The review's typical requests: the default page, filters, a text search, a phone search, a sort, a deep page.
const shapes: [string, (run: number) => string][] = [
  ["default (newest first)", () => "/api/admin/audience?app=flex&page=1&pageSize=20"],
  ["region + good standing + setup", () => "/api/admin/audience?app=flex&region=Miami&region=Tampa&goodStanding=yes&setupComplete=yes&page=1&pageSize=20"],
  ["created in a date range", () => "/api/admin/audience?app=flex&startDate=2026-01-01&endDate=2026-12-31&tzOffsetMinutes=300&page=1&pageSize=100"],
  ["text search", (i) => `/api/admin/audience?app=flex&search=${["garc", "maría", "miami10", "ana l"][i % 4]}&page=1&pageSize=20`],
  ["phone search", (i) => `/api/admin/audience?app=flex&search=${6460000000 + i * 997}&page=1&pageSize=20`],
  ["sort by name, page 50", () => "/api/admin/audience?app=flex&sort=name&dir=asc&page=50&pageSize=20"],
];

/**
 * The floor: a signed-in admin request that reads one row (the demo driver), timed the same way.
 * Every shape pays it (HTTP, the middleware, the token and live-session check); the column "over
 * the floor" is what the review's own queries cost, so a change in the request path and a change
 * in the audience SQL can be told apart.
 */
const FLOOR = "/api/admin/users/3";

// Warm the runtime and SQLite's page cache, as a running Worker would be.
for (const [, path] of shapes) await timed(path(0));
await timed(FLOOR);

const all: number[] = [];
const rows: string[] = [];
let total = 0;
let reviewBytes = 0;
const floorTimes: number[] = [];
const measured: { name: string; times: number[] }[] = [];
for (const [name, path] of shapes) {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    // The floor is sampled between the shapes' requests, so both see the same machine.
    floorTimes.push((await timed(FLOOR)).ms);
    const r = await timed(path(i));
    times.push(r.ms);
    if (name.startsWith("default")) {
      total = (r.body as { total: number }).total;
      reviewBytes = r.bytes;
    }
  }
  all.push(...times);
  measured.push({ name, times });
}
const floor = median(floorTimes);
for (const { name, times } of measured) {
  rows.push(`| ${name} | ${median(times).toFixed(1)} ms | ${percentile(times, 95).toFixed(1)} ms | ${(median(times) - floor).toFixed(1)} ms |`);
}

// The old way: every row of all-users-table. It answers DynamoDB's continuation now (100 rows a
// request, LastEvaluatedKey to the next), so follow it to the end, one request after another.
const started = performance.now();
const items: { id: number }[] = [];
let bytes = 0;
let pages = 0;
let key: unknown;
do {
  const r = await timed(`/api/flex/v1/all-users-table?Limit=100${key ? `&ExclusiveStartKey=${encodeURIComponent(JSON.stringify(key))}` : ""}`);
  const body = r.body as { Items: { id: number }[]; LastEvaluatedKey?: unknown };
  items.push(...body.Items);
  bytes += r.bytes;
  pages++;
  key = body.LastEvaluatedKey;
} while (key);
// Every Flex account, administrators included: at least every driver the review counts.
const wholeTotal = total;
const wholeMs = performance.now() - started;
const whole = JSON.stringify({ Items: items });
const wholeBytes = Buffer.byteLength(whole);
const wholeGzip = gzipSync(whole).length;
worker.stop();

const mb = (b: number) => `${(b / 1_048_576).toFixed(1)} MB`;
const seconds = (bits: number, mbps: number) => `${(bits / (mbps * 1_000_000)).toFixed(1)} s`;
const overall = median(all);
console.log(`\nAudience review over ${total.toLocaleString("en-US")} Flex drivers (${RUNS} requests per shape, local runtime, client-measured)\n`);
console.log("| query | median | p95 | over the floor |\n|---|---|---|---|");
for (const r of rows) console.log(r);
console.log(`| **all shapes** | **${overall.toFixed(1)} ms** | ${percentile(all, 95).toFixed(1)} ms | ${(overall - floor).toFixed(1)} ms |`);
console.log(`| floor: GET ${FLOOR} (signed in, one row) | ${floor.toFixed(1)} ms | ${percentile(floorTimes, 95).toFixed(1)} ms | |`);
console.log(
  `\nBudget: median ≤ ${BUDGET_MS} ms → ${overall <= BUDGET_MS ? "within" : "OVER"}${options.short ? " (short run: informative only)" : ""}. One review answer (20 rows and the count) is ${(reviewBytes / 1024).toFixed(1)} KB.`,
);
console.log(`\nThe old whole-table download (all-users-table, ${items.length.toLocaleString("en-US")} rows):`);
console.log(
  `  ${mb(wholeBytes)} of JSON (${mb(wholeGzip)} gzipped); ${(wholeMs / 1000).toFixed(1)} s to produce here in ${pages} pages (${mb(bytes)} on the wire)`,
);
console.log(
  `  transfer alone: ${seconds(wholeGzip * 8, 10)} at 10 Mbit/s, ${seconds(wholeGzip * 8, 50)} at 50 Mbit/s (gzipped), before parsing and filtering in the browser`,
);
// A failed request throws above; paging the whole table must have brought every row its count promised.
if (new Set(items.map((u) => u.id)).size !== items.length || items.length < wholeTotal) {
  console.error(`the whole-table download listed ${items.length} users (${new Set(items.map((u) => u.id)).size} different), expected at least ${wholeTotal}`);
  process.exit(1);
}
if (overall > BUDGET_MS && !options.short) process.exit(1);
