/**
 * `npm run bench:load`: concurrent load on two signed-in reads of the built Worker on the local
 * runtime (`wrangler dev`), beside a bare Hono route (bench/load-bare) run on the same machine in
 * the same run, so the figures read as a share of what the runtime and HTTP alone allow:
 *
 * - `GET /api/flex/v1/user` as the demo driver (ID token verified, user and session read live);
 * - `GET /api/admin/campaigns?page=1&pageSize=20` as the demo owner, over the campaigns made first.
 *
 * It prints p50, p99 and requests/s per route and the ratio to the bare route. Goal: p99 ≤ 50 ms and
 * ≥ 50 % of the bare route's requests/s. Every answer must be a 200 (a refused token fails the run).
 *
 * Where the time goes: the same run also measures, through the real app, the steps the signed-in
 * read is made of: the middleware stack alone (no token: 401), the stack and an ES256 check that
 * fails (a token with a wrong signature: 401), the stack and one D1 query (GET /api/status/health).
 * The full read adds the user and session queries (one D1 batch) to those.
 *
 *   --connections N  concurrent connections (default 50; 10 with --short)
 *   --duration S     seconds per route (default 10; 2 with --short)
 *   --campaigns N    campaigns listed (default 40; 5 with --short)
 *   --port P         the Worker's port (default: the first two free ports from 8795); the bare route listens on P + 1
 *   --short          the small run of `npm test`: the goals are printed, not enforced
 *   --skip-build     reuse the last private build copy (or the one --build-dir names)
 */
import autocannon from "autocannon";
import { benchOptions, freshState, numberArg, prepareBuild, signInDriver, signInOwner, startWorker, startWranglerDev } from "./harness.ts";

const options = await benchOptions(8795, 2);
const CONNECTIONS = numberArg("connections", options.short ? 10 : 50);
const DURATION = numberArg("duration", options.short ? 2 : 10);
const CAMPAIGNS = numberArg("campaigns", options.short ? 5 : 40);
const STATE = `.wrangler/bench-load-state${options.short ? "-short" : ""}`;
const P99_GOAL_MS = 50;
const SHARE_GOAL = 0.5;

const dir = prepareBuild(options, ".wrangler/bench-load-build");
freshState(STATE);
const worker = await startWorker({ dir, port: options.port, state: STATE });
const bare = await startWranglerDev(["-c", "bench/load-bare/wrangler.toml"], options.port + 1, "/bare");

try {
  const driver = await signInDriver(worker.url);
  const owner = await signInOwner(worker.url);
  const ownerHeaders = { Authorization: `Bearer ${owner.idToken}`, "Content-Type": "application/json" };

  // Campaigns to list: small phone-list campaigns through the real path, all settled before measuring.
  for (let i = 0; i < CAMPAIGNS; i++) {
    const phones = [0, 1, 2].map((k) => `+1646555${String(i * 3 + k).padStart(4, "0")}`);
    const res = await fetch(`${worker.url}/api/admin/campaigns`, {
      method: "POST",
      headers: ownerHeaders,
      body: JSON.stringify({ idempotencyKey: `load-${i}`, source: "list", channel: "sms", purpose: "service", message: `Load bench ${i}`, phones }),
    });
    if (!res.ok) throw new Error(`creating campaign ${i} answered ${res.status}: ${await res.text()}`);
  }
  for (let waited = 0; ; waited++) {
    const res = await fetch(`${worker.url}/api/admin/campaigns?page=1&pageSize=100`, { headers: ownerHeaders });
    const page = (await res.json()) as { rows: { status: string }[] };
    if (page.rows.every((c) => c.status === "done")) break;
    if (waited > 120) throw new Error("the campaigns did not settle within two minutes");
    await new Promise((r) => setTimeout(r, 1000));
  }

  type Target = { name: string; url: string; headers?: Record<string, string>; status?: number; goal?: boolean };
  // The last character of the signature changed: the token parses, and the ES256 check fails.
  const forged = `${driver.idToken.slice(0, -2)}${driver.idToken.endsWith("AA") ? "BB" : "AA"}`;
  const targets: Target[] = [
    { name: "bare Hono route (no middleware, no database)", url: `${bare.url}/bare` },
    { name: "GET /api/flex/v1/user (driver)", url: `${worker.url}/api/flex/v1/user`, headers: { Authorization: `Bearer ${driver.idToken}` }, goal: true },
    {
      name: "GET /api/admin/campaigns, 20 of them (owner)",
      url: `${worker.url}/api/admin/campaigns?page=1&pageSize=20`,
      headers: { Authorization: `Bearer ${owner.idToken}` },
      goal: true,
    },
    { name: "where the time goes: middleware stack only (no token, 401)", url: `${worker.url}/api/flex/v1/user`, status: 401 },
    {
      name: "… stack + ES256 check (forged signature, 401)",
      url: `${worker.url}/api/flex/v1/user`,
      headers: { Authorization: `Bearer ${forged}` },
      status: 401,
    },
    { name: "… stack + one D1 query (GET /api/status/health)", url: `${worker.url}/api/status/health` },
  ];
  type Row = { name: string; p50: number; p99: number; rps: number; failures: number; goal: boolean };
  const rows: Row[] = [];
  for (const target of targets) {
    const { url, headers = {} } = target;
    // Warm the isolate, the JIT and SQLite's page cache, as a Worker in service would be.
    await autocannon({ url, headers, connections: CONNECTIONS, duration: 1 });
    const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION });
    const expected = r.statusCodeStats[String(target.status ?? 200)]?.count ?? 0;
    rows.push({
      name: target.name,
      p50: r.latency.p50,
      p99: r.latency.p99,
      rps: r.requests.average,
      failures: r.requests.total - expected + r.errors,
      goal: !!target.goal,
    });
  }

  const bareRps = rows[0]!.rps;
  console.log(`\nLoad: ${CONNECTIONS} connections, ${DURATION} s per route, local runtime (wrangler dev of the production build)\n`);
  console.log("| route | p50 | p99 | requests/s | vs bare | failed |\n|---|---|---|---|---|---|");
  for (const r of rows) {
    console.log(`| ${r.name} | ${r.p50} ms | ${r.p99} ms | ${r.rps.toFixed(0)} | ${((r.rps / bareRps) * 100).toFixed(0)} % | ${r.failures} |`);
  }
  const measured = rows.filter((r) => r.goal);
  const p99Ok = measured.every((r) => r.p99 <= P99_GOAL_MS);
  const shareOk = measured.every((r) => r.rps >= SHARE_GOAL * bareRps);
  const note = options.short ? " (short run: informative only)" : "";
  console.log(`\nGoal p99 ≤ ${P99_GOAL_MS} ms → ${p99Ok ? "within" : "OVER"}${note}`);
  console.log(`Goal ≥ ${SHARE_GOAL * 100} % of the bare route's requests/s → ${shareOk ? "within" : "UNDER"}${note}`);
  const failures = rows.reduce((n, r) => n + r.failures, 0);
  if (failures > 0) console.error(`${failures} requests were not answered as expected`);
  process.exitCode = failures === 0 && (options.short || (p99Ok && shareOk)) ? 0 : 1;
} finally {
  worker.stop();
  bare.stop();
}
