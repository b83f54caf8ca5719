/**
 * `npm run bench:live`: the live dashboard (docs/engine.md, "The live dashboard") in the production
 * build under `wrangler dev`, with running engines against the fake delivery platform over HTTP
 * (test/fake-platform, run in this process) and each driver's dashboard open as a WebSocket client.
 *
 *   (a) latency: from the engine's decision (the row's recorded time, `seenAt`: when the platform's
 *       answer was judged) to the socket's message with that row arriving at the client, p50 and
 *       p95 — goal p95 ≤ 250 ms. Won blocks include the accept's round trip.
 *   (b) an open dashboard-hour: requests and D1 statements (the Worker's worker.usage lines with
 *       USAGE_LOG=1, src/worker/usage.ts; the engines' capture.usage lines) before, polling as the
 *       SPA did (GET /api/driver/offers + GET /api/driver/engine every 3 s: measured per poll, times
 *       1,200), and after, on the socket: its opening measured (the ticket, the upgrade, the one
 *       offers read that fills what was missed), and a window with the sockets open measured and
 *       scaled to an hour. A socket lasts its ID token (an hour at most), so an hour has one opening.
 *
 * Options: --short (the small run npm test makes), --drivers N, --offers K, --window S (seconds),
 * --polls P, --skip-build, --build-dir DIR, --port P (the Worker; the fake platform takes P+1;
 * default: the first two free ports from 8846).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { freePorts } from "../scripts/ports.ts";
import { startFakePlatform } from "../test/fake-platform/server.ts";
import { stringArg as arg, buildCopy, devVarsOf, flag, freshState, percentile, startWorker } from "./harness.ts";
import { type SeededDriver, seedFlexDrivers } from "./seeded-drivers.ts";
import { difference, per, saveUnits, sum, WorkerLog } from "./units.ts";

const short = flag("short");
const DRIVERS = Number(arg("drivers") ?? (short ? 2 : 10));
const OFFERS = Number(arg("offers") ?? (short ? 8 : 60));
const WINDOW_S = Number(arg("window") ?? (short ? 15 : 120));
const POLLS = Number(arg("polls") ?? (short ? 10 : 60));
const port = Number(arg("port") ?? (await freePorts(8846, 2)));
const buildDir = arg("build-dir") ?? ".wrangler/bench-live-build";
const state = `.wrangler/bench-live-state-${port}`;
const GOAL_P95_MS = 250;
const POLLS_AN_HOUR = 3600 / 3;
/** The SPA's ping (src/app/features/driver/live-dashboard.ts), answered by the runtime without waking the object. */
const PINGS_AN_HOUR = 3600 / 30;
const REQUEST_MS = 20_000;

for (const [name, n] of Object.entries({ drivers: DRIVERS, offers: OFFERS, window: WINDOW_S, polls: POLLS }))
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} takes a whole number of at least 1`);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(130));

if (!process.argv.includes("--skip-build")) buildCopy(buildDir);
// As bench/engine.ts: without miniflare's local observability collector, from a config of its own beside the build's.
const configPath = `${buildDir}/blockpilot/wrangler.json`;
const config = JSON.parse(readFileSync(configPath, "utf8")) as Record<string, unknown>;
const liveConfigPath = `${buildDir}/blockpilot/wrangler.live-bench.json`;
writeFileSync(liveConfigPath, JSON.stringify({ ...config, observability: { enabled: false } }));
freshState(state);
const vars = devVarsOf(buildDir);

// Offers come only when the bench injects them; nobody else takes them.
const platform = await startFakePlatform({
  port: port + 1,
  config: { limitModel: "generous", offersPerMinute: 0, competitorTakePerSecond: 0, offerLifetimeMs: [20_000, 60_000] },
});
const control = (what: string, body: unknown) =>
  fetch(`${platform.url}/__control/${what}`, { method: "POST", body: JSON.stringify(body), signal: AbortSignal.timeout(REQUEST_MS) }).then((r) => r.json());

console.log(`Seeding ${DRIVERS} drivers…`);
// Every other driver wants more pay than the offers give: their rows are disliked ones.
const drivers = await seedFlexDrivers({
  platformUrl: platform.url,
  state,
  vars,
  count: DRIVERS,
  userBase: 4_000_000,
  minPayOf: (i) => (i % 2 === 1 ? 9000 : 0),
});
const workerLog = new WorkerLog();
const worker = await startWorker({
  dir: buildDir,
  config: liveConfigPath,
  port,
  state,
  vars: {
    FLEX_SIGN_IN_BASE: `${platform.url}/flex`,
    FLEX_IDENTITY_BASE: `${platform.url}/flex`,
    FLEX_CAPACITY_BASE: `${platform.url}/flex`,
    SPARK_PLATFORM_API_BASE: `${platform.url}/spark`,
    CAPTURE_POLL_INTERVAL_MS: "2000",
    CAPTURE_USAGE_LOG_MS: "5000",
    USAGE_LOG: "1",
  },
  onLog: workerLog.onLog,
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const num = (x: number, digits = 2) => x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function request(d: SeededDriver, path: string, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(`${worker.url}${path}`, {
    method: init.method ?? "GET",
    headers: { Authorization: `Bearer ${d.token}`, "Content-Type": "application/json" },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    signal: AbortSignal.timeout(REQUEST_MS),
  });
  if (!res.ok) throw new Error(`${init.method ?? "GET"} ${path} answered ${res.status}: ${await res.text()}`);
  return res.json() as Promise<Record<string, unknown>>;
}

/** The Worker's totals (worker.usage) after the requests so far have logged theirs. */
async function workerTotals() {
  await sleep(300);
  return workerLog.last("worker.usage");
}

type OfferMessage = { type: "offer"; offer: { id: number; status: string; seenAt: number } };
type Dashboard = { driver: SeededDriver; socket: WebSocket; frames: number; firstSeen: Map<number, number>; latencies: number[] };

/** A dashboard's socket as the SPA opens it: a ticket, then the upgrade with it; its messages timed on arrival. */
async function openDashboard(driver: SeededDriver): Promise<Dashboard> {
  const { ticket } = (await request(driver, "/api/driver/live-ticket", { method: "POST" })) as { ticket: string };
  const socket = new WebSocket(`${worker.url.replace(/^http/, "ws")}/api/driver/live?ticket=${encodeURIComponent(ticket)}`);
  const dashboard: Dashboard = { driver, socket, frames: 0, firstSeen: new Map(), latencies: [] };
  const first = new Promise<void>((resolve, reject) => {
    socket.addEventListener("message", () => resolve(), { once: true });
    socket.addEventListener("error", () => reject(new Error(`driver ${driver.userId}'s socket failed`)), { once: true });
  });
  socket.addEventListener("message", (e) => {
    const arrived = Date.now();
    dashboard.frames++;
    const message = JSON.parse(String(e.data)) as OfferMessage | { type: "engine" };
    if (message.type !== "offer" || dashboard.firstSeen.has(message.offer.id)) return;
    dashboard.firstSeen.set(message.offer.id, arrived);
    dashboard.latencies.push(arrived - message.offer.seenAt);
  });
  await first;
  return dashboard;
}

// ---- The engines on, each dashboard open ----
for (const d of drivers) await request(d, "/api/driver/engine", { method: "POST", body: { on: true } });
await sleep(2500);

// The opening, measured on the first: the ticket, the upgrade, and the offers read the SPA makes once open.
const beforeOpening = await workerTotals();
const dashboards = [await openDashboard(drivers[0]!)];
await request(drivers[0]!, "/api/driver/offers?page=1&pageSize=20");
const opening = difference(beforeOpening, await workerTotals());
for (const d of drivers.slice(1)) dashboards.push(await openDashboard(d));

// ---- (a) latency: offers at the drivers' stations, one every 1.5 s ----
console.log(`(a) ${OFFERS} offers to ${DRIVERS} open dashboards…`);
const quarter = 15 * 60_000;
for (let k = 0; k < OFFERS; k++) {
  const d = drivers[k % DRIVERS]!;
  const startsAt = Math.ceil((Date.now() + (6 + (k % 40)) * 3_600_000) / quarter) * quarter;
  await control("offers", {
    offers: [
      { app: "flex", serviceAreaId: d.stations[k % 3]!, startsAt, endsAt: startsAt + 2 * 3_600_000, payCents: 7000 + (k % 5) * 100, expiresInMs: 60_000 },
    ],
  });
  await sleep(1500);
}
await sleep(3000);
const latencies = dashboards.flatMap((b) => b.latencies);
const rows = dashboards.reduce((n, b) => n + b.firstSeen.size, 0);
if (rows < OFFERS) throw new Error(`only ${rows} rows reached the dashboards for ${OFFERS} offers`);
const p50 = percentile(latencies, 50);
const p95 = percentile(latencies, 95);
console.log(
  "| decision → socket message at the client | rows | p50 | p95 | max | goal |\n|---|---|---|---|---|---|\n" +
    `| measured | ${latencies.length} | ${num(p50, 0)} ms | ${num(p95, 0)} ms | ${num(Math.max(...latencies), 0)} ms | p95 ≤ ${GOAL_P95_MS} ms: ${p95 <= GOAL_P95_MS ? "within" : "OVER"} |`,
);

// ---- (b) an open dashboard-hour: the sockets open and nothing polled, then the polling of before ----
console.log(`(b) ${WINDOW_S} s with ${DRIVERS} sockets open, then ${POLLS} polls…`);
const windowFrom = Date.now();
const beforeWindow = await workerTotals();
const framesBefore = dashboards.reduce((n, b) => n + b.frames, 0);
await sleep(WINDOW_S * 1000);
const quiet = difference(beforeWindow, await workerTotals());
const windowTo = Date.now();
const engines = sum(workerLog.within("capture.usage", windowFrom, windowTo));
const framesInWindow = dashboards.reduce((n, b) => n + b.frames, 0) - framesBefore;

const beforePolls = await workerTotals();
for (let k = 0; k < POLLS; k++) {
  await request(drivers[0]!, "/api/driver/offers?page=1&pageSize=20");
  await request(drivers[0]!, "/api/driver/engine");
}
const polls = difference(beforePolls, await workerTotals());
for (const b of dashboards) b.socket.close(1000);
for (const d of drivers) await request(d, "/api/driver/engine", { method: "POST", body: { on: false } });

const statements = (u: Record<string, number>) => (u.d1Reads ?? 0) + (u.d1Writes ?? 0);
const calls = (u: Record<string, number>) => u["doCalls.CAPTURE_SESSION"] ?? 0;
const hourScale = 3600 / WINDOW_S;
const perPoll = { requests: per(polls.requests ?? 0, POLLS), d1: per(statements(polls), POLLS), doCalls: per(calls(polls), POLLS) };
const socketHour = {
  requests: (opening.requests ?? 0) + ((quiet.requests ?? 0) / DRIVERS) * hourScale,
  d1: statements(opening) + (statements(quiet) / DRIVERS) * hourScale,
  doCalls: calls(opening) + (calls(quiet) / DRIVERS) * hourScale,
  messages: (framesInWindow / DRIVERS) * hourScale,
};
const pollingHour = { requests: perPoll.requests * POLLS_AN_HOUR, d1: perPoll.d1 * POLLS_AN_HOUR, doCalls: perPoll.doCalls * POLLS_AN_HOUR };
console.log(
  `\nMeasured: the opening ${num(opening.requests ?? 0, 0)} requests, ${num(statements(opening), 0)} D1 statements, ${num(calls(opening), 0)} Durable Object calls; ` +
    `a poll ${num(perPoll.requests)} requests, ${num(perPoll.d1)} D1 statements, ${num(perPoll.doCalls)} Durable Object calls; ` +
    `${WINDOW_S} s with ${DRIVERS} sockets open: ${num(quiet.requests ?? 0, 0)} requests, ${num(statements(quiet), 0)} D1 statements at the Worker, ` +
    `${num(framesInWindow, 0)} messages; the ${DRIVERS} engines meanwhile ${num((engines.d1Reads ?? 0) + (engines.d1Writes ?? 0), 0)} D1 statements of their own (their polls, the socket's views included).\n` +
    "| an open dashboard-hour | requests | D1 statements | Durable Object calls | socket messages |\n|---|---|---|---|---|\n" +
    `| before: polling every 3 s | ${num(pollingHour.requests, 0)} | ${num(pollingHour.d1, 0)} | ${num(pollingHour.doCalls, 0)} | – |\n` +
    `| now: the socket (one opening an hour) | ${num(socketHour.requests, 0)} | ${num(socketHour.d1, 0)} | ${num(socketHour.doCalls, 0)} (and ${PINGS_AN_HOUR} pings the runtime answers) | ${num(socketHour.messages, 0)} in this window's hour |`,
);

saveUnits("live", {
  drivers: DRIVERS,
  offers: OFFERS,
  latencyMs: { p50, p95, rows: latencies.length },
  opening: { requests: opening.requests ?? 0, d1Statements: statements(opening), doCalls: calls(opening) },
  perPoll,
  window: { seconds: WINDOW_S, requests: quiet.requests ?? 0, d1Statements: statements(quiet), messages: framesInWindow },
  perDashboardHour: { polling: pollingHour, socket: socketHour, pings: PINGS_AN_HOUR },
});
worker.stop();
await platform.close();
process.exit(0);
