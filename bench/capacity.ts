/**
 * `npm run bench:capacity`: the capacity and cost model of docs/capacity.md, worked out from
 * measured unit costs. Each set of unit costs is one column set: by default the committed
 * baseline (bench/capacity-before.json: D1 holding every offer) and, when there is one, the last
 * run's (bench/results/units-engine-latest.json, with units-dispatch-latest.json beside it).
 *
 *   --units a.json[,b.json]   unit-cost files to compare (engine units; a file may carry dispatch and admin too)
 *   --labels A,B              their names in the tables
 *   --platform-ms 300         assumed wall time of one platform call, ms (sets Durable Object duration)
 *   --short                   the committed baseline only (bench/short.ts runs this)
 *
 * Prices and limits are Cloudflare's published figures, quoted with their pages in docs/capacity.md;
 * they are written once, in PRICES and LIMITS below.
 */
import { existsSync, readFileSync } from "node:fs";
import { WON_BLOCKS_PER_DRIVER_DAY } from "./engine-units.ts";
import { flag, numberArg, stringArg } from "./harness.ts";

/** Workers Paid, per month (docs/capacity.md, "Prices"). */
const PRICES = {
  base: 5,
  workerRequests: { included: 10e6, perMillion: 0.3 },
  workerCpuMs: { included: 30e6, perMillion: 0.02 },
  doRequests: { included: 1e6, perMillion: 0.15 },
  doGbSeconds: { included: 400_000, perMillion: 12.5 },
  doRowsRead: { included: 25e9, perMillion: 0.001 },
  doRowsWritten: { included: 50e6, perMillion: 1.0 },
  doStoredGbMonth: { included: 5, perGb: 0.2 },
  d1RowsRead: { included: 25e9, perMillion: 0.001 },
  d1RowsWritten: { included: 50e6, perMillion: 1.0 },
  d1StoredGbMonth: { included: 5, perGb: 0.75 },
  queueOps: { included: 1e6, perMillion: 0.4 },
} as const;

/** Published limits the model checks (docs/capacity.md, "Limits"). */
const LIMITS = {
  d1DatabaseBytes: 10e9,
  /** "If your average query takes 1 ms, you can run approximately 1,000 queries per second." */
  d1StatementsPerSecond: 1000,
  /** Soft limit per Durable Object. */
  doRequestsPerSecondPerObject: 1000,
  queueMessagesPerSecond: 5000,
} as const;

/** Offers past these ages are deleted (src/worker/retention.ts): D1 stops growing after 90 days of not-won offers. */
const RETENTION_DAYS = 90;
const DO_MEMORY_GB = 0.128;
const SEARCH_HOURS = 10;
const DAYS_A_MONTH = 30;
/** The plans' price for one week (migrations/0005_default_plans.sql): Flex and Spark. */
const WEEK_PRICE = { flex: 39.99, spark: 29.99 };
const SIZES = [1_000, 10_000, 50_000];
const OFFER_RATES = [0.5, 2, 5];

type EngineFile = {
  bench?: string;
  commit?: string;
  at?: string;
  intervalMs: number;
  sizes: {
    drivers: number;
    offersPerDriverMinute: number;
    perPoll: {
      d1Reads: number;
      d1Writes: number;
      d1RowsRead: number;
      storageRowsWritten: number;
      alarms: number;
      alarmsSet: number;
      platformCalls: number;
      workerdCpuMs: number;
    };
    emptyPoll: { d1Statements: number; storageRowsWritten: number; share: number };
    perOffer: { d1Writes: number; d1RowsWritten: number; d1BytesUsed: number; storageRowsWritten: number; storageBytes?: number };
    /** What D1's `offers` holds a row of (missing in the baseline, where it was every offer), and what a row costs. */
    d1Rows?: "every offer" | "won blocks";
    perD1Row?: { d1Writes: number; d1RowsWritten: number; bytes: number };
    storageBytesPerDriver?: number;
  }[];
  dashboard?: { requests: number; d1Reads: number; d1Writes: number; doCalls: number; workerdCpuMs: number };
  signIn?: { d1Reads: number; d1Writes: number; d1RowsWritten: number };
  dispatch?: DispatchUnits;
  admin?: { perRequest: Record<string, { d1Reads: number; d1Writes: number; medianMs: number }> };
  /** bench:live: the dashboard's socket (its opening, and an open dashboard-hour), beside the polling it replaced. */
  live?: LiveUnits;
};
type LiveUnits = {
  latencyMs: { p50: number; p95: number };
  opening: { requests: number; d1Statements: number; doCalls: number };
  perDashboardHour: { socket: { requests: number; d1: number; doCalls: number; messages: number }; pings: number };
};
type DispatchUnits = {
  recipients: number;
  perRecipient: {
    requests: number;
    d1Reads: number;
    d1Writes: number;
    d1RowsWritten: number;
    d1BytesUsed: number;
    queueMessagesSent: number;
    queueMessagesReceived: number;
    doCalls: number;
    workerdCpuMs: number;
  };
};

const short = flag("short");
const platformMs = numberArg("platform-ms", 300);
const BASELINE = "bench/capacity-before.json";
const read = (path: string) => JSON.parse(readFileSync(path, "utf8")) as EngineFile;

function inputs(): { label: string; units: EngineFile }[] {
  const given = stringArg("units");
  const labels = (stringArg("labels") ?? "").split(",").filter(Boolean);
  const paths = given
    ? given.split(",")
    : [BASELINE, ...(!short && existsSync("bench/results/units-engine-latest.json") ? ["bench/results/units-engine-latest.json"] : [])];
  return paths.map((path, i) => {
    const units = read(path);
    // A run's dispatch and admin units sit beside its engine units.
    const dir = path.slice(0, path.lastIndexOf("/") + 1);
    if (!units.dispatch && existsSync(`${dir}units-dispatch-latest.json`) && path.endsWith("units-engine-latest.json"))
      units.dispatch = JSON.parse(readFileSync(`${dir}units-dispatch-latest.json`, "utf8")) as DispatchUnits;
    if (!units.admin && existsSync(`${dir}units-admin-latest.json`) && path.endsWith("units-engine-latest.json"))
      units.admin = JSON.parse(readFileSync(`${dir}units-admin-latest.json`, "utf8")) as EngineFile["admin"];
    if (!units.live && existsSync(`${dir}units-live-latest.json`) && path.endsWith("units-engine-latest.json"))
      units.live = JSON.parse(readFileSync(`${dir}units-live-latest.json`, "utf8")) as LiveUnits;
    const label = labels[i] ?? (path === BASELINE ? "before (D1 holds every offer)" : `${path} (${units.commit ?? "?"})`);
    return { label, units };
  });
}

const over = (used: number, p: { included: number; perMillion: number }) => (Math.max(0, used - p.included) / 1e6) * p.perMillion;

/** One fleet: `drivers` searching 10 h a day at the interval, shown `rate` new offers a minute. */
function fleet(units: EngineFile, drivers: number, rate: number) {
  const u = units.sizes.at(-1)!;
  const pollsPerSecond = 1000 / units.intervalMs;
  const offersPerSecond = rate / 60;
  const searchSeconds = SEARCH_HOURS * 3600;
  // D1's rows: every offer shown, or only the blocks won (a handful a day, however many offers come).
  const row = u.perD1Row ?? { d1Writes: u.perOffer.d1Writes, d1RowsWritten: u.perOffer.d1RowsWritten, bytes: u.perOffer.d1BytesUsed };
  const rowsPerDay = u.d1Rows === "won blocks" ? Math.min(WON_BLOCKS_PER_DRIVER_DAY, rate * 60 * SEARCH_HOURS) : rate * 60 * SEARCH_HOURS;
  const rowsPerSecond = rowsPerDay / searchSeconds;
  // While searching (all drivers at once: the peak the limits are checked against).
  const perDriver = {
    platformCalls: pollsPerSecond * u.perPoll.platformCalls,
    alarms: pollsPerSecond * u.perPoll.alarms,
    d1Reads: pollsPerSecond * u.perPoll.d1Reads,
    d1Writes: rowsPerSecond * row.d1Writes,
    d1RowsRead: pollsPerSecond * u.perPoll.d1RowsRead,
    d1RowsWritten: rowsPerSecond * row.d1RowsWritten,
    // setAlarm is billed as a row written.
    storageRows: pollsPerSecond * (u.emptyPoll.storageRowsWritten + u.perPoll.alarmsSet) + offersPerSecond * u.perOffer.storageRowsWritten,
    d1BytesPerDay: row.bytes * rowsPerDay,
  };
  const perSecond = Object.fromEntries(Object.entries(perDriver).map(([k, v]) => [k, v * drivers])) as typeof perDriver;
  const month = (x: number) => x * searchSeconds * DAYS_A_MONTH;
  const growthPerDay = perSecond.d1BytesPerDay;
  const steadyBytes = growthPerDay * RETENTION_DAYS;
  const daysToFull = steadyBytes <= LIMITS.d1DatabaseBytes ? Number.POSITIVE_INFINITY : LIMITS.d1DatabaseBytes / growthPerDay;
  // D1 storage in the first month: growing from empty, the month's average is half its end (capped at the limit).
  const d1GbMonth = Math.min(growthPerDay * DAYS_A_MONTH, LIMITS.d1DatabaseBytes) / 2 / 1e9;
  const polls = month(drivers * pollsPerSecond);
  const gbSeconds = polls * ((platformMs + u.perPoll.workerdCpuMs) / 1000) * DO_MEMORY_GB;
  const bill = {
    base: PRICES.base,
    doRequests: over(month(perSecond.alarms), PRICES.doRequests),
    doDuration: over(gbSeconds, PRICES.doGbSeconds),
    doRowsWritten: over(month(perSecond.storageRows), PRICES.doRowsWritten),
    d1RowsRead: over(month(perSecond.d1RowsRead), PRICES.d1RowsRead),
    d1RowsWritten: over(month(perSecond.d1RowsWritten), PRICES.d1RowsWritten),
    d1Storage: Math.max(0, d1GbMonth - PRICES.d1StoredGbMonth.included) * PRICES.d1StoredGbMonth.perGb,
  };
  const total = Object.values(bill).reduce((a, b) => a + b, 0);
  const d1Statements = perSecond.d1Reads + perSecond.d1Writes;
  const walls: { name: string; day: number }[] = [
    {
      name: `D1 throughput (${Math.round(d1Statements)} statements/s of ~${LIMITS.d1StatementsPerSecond})`,
      day: d1Statements > LIMITS.d1StatementsPerSecond ? 0 : Number.POSITIVE_INFINITY,
    },
    { name: "D1 database size (10 GB)", day: daysToFull },
  ];
  const first = walls.reduce((a, b) => (b.day < a.day ? b : a));
  return {
    drivers,
    rate,
    perSecond,
    d1Statements,
    growthPerDay,
    daysToFull,
    steadyBytes,
    bill,
    total,
    perDriverWeek: ((total - PRICES.base) / drivers) * (7 / DAYS_A_MONTH),
    firstWall:
      first.day === Number.POSITIVE_INFINITY ? "none of these" : first.day === 0 ? `${first.name}, at once` : `${first.name}, day ${Math.floor(first.day)}`,
  };
}

const n = (x: number, digits = 0) => x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const gb = (bytes: number) => `${n(bytes / 1e9, 2)} GB`;
const money = (x: number) => `$${n(x, x < 10 ? 2 : 0)}`;
const days = (d: number) => (d === Number.POSITIVE_INFINITY ? "never (90-day retention keeps it under)" : n(d, 1));

function printTables(label: string, units: EngineFile) {
  const u = units.sizes.at(-1)!;
  console.log(
    `\n## ${label}\n\nUnit costs (bench:engine, N = ${u.drivers}, ${units.commit ?? "?"}): per poll ${n(u.perPoll.d1Reads, 3)} D1 reads, ` +
      `${n(u.perPoll.platformCalls, 3)} platform calls, ${n(u.emptyPoll.storageRowsWritten + u.perPoll.alarmsSet, 2)} storage rows written when nothing new (setAlarm included), ` +
      `${n(u.perPoll.workerdCpuMs, 1)} ms workerd CPU (upper bound); per offer ${n(u.perOffer.d1Writes, 3)} D1 write statements, ${n(u.perOffer.d1RowsWritten, 2)} D1 rows written, ` +
      `${n(u.perOffer.d1BytesUsed)} D1 bytes, ${n(u.perOffer.storageRowsWritten, 2)} storage rows. ` +
      (u.d1Rows === "won blocks"
        ? `D1 holds won blocks only: ${WON_BLOCKS_PER_DRIVER_DAY} a driver-day at ${n(u.perD1Row!.bytes)} bytes and ${n(u.perD1Row!.d1Writes, 2)} write statements each. `
        : "D1 holds a row per offer shown. ") +
      `Durable Object duration priced at ${platformMs} ms of platform call + the CPU per poll.`,
  );
  console.log(
    "\n| drivers | offers/min | platform calls/s | alarms/s | D1 statements/s (read + write) | D1 rows written/s | D1 growth/day | days to 10 GB | storage rows written/s | first wall |\n|---|---|---|---|---|---|---|---|---|---|",
  );
  for (const drivers of SIZES)
    for (const rate of OFFER_RATES) {
      const f = fleet(units, drivers, rate);
      console.log(
        `| ${n(drivers)} | ${rate} | ${n(f.perSecond.platformCalls)} | ${n(f.perSecond.alarms)} | ${n(f.perSecond.d1Reads)} + ${n(f.perSecond.d1Writes)} | ${n(f.perSecond.d1RowsWritten)} | ${gb(f.growthPerDay)} | ${days(f.daysToFull)} | ${n(f.perSecond.storageRows)} | ${f.firstWall} |`,
      );
    }
  console.log(
    "\nMonthly bill (30 days, first month; Workers Paid) and per driver per week, beside the week's plan ($39.99 Flex, $29.99 Spark)\n\n" +
      "| drivers | offers/min | DO requests | DO duration | DO rows written | D1 rows written | D1 rows read | D1 storage | total a month | per driver a week | share of $39.99 / $29.99 |\n|---|---|---|---|---|---|---|---|---|---|---|",
  );
  for (const drivers of SIZES)
    for (const rate of OFFER_RATES) {
      const f = fleet(units, drivers, rate);
      const b = f.bill;
      console.log(
        `| ${n(drivers)} | ${rate} | ${money(b.doRequests)} | ${money(b.doDuration)} | ${money(b.doRowsWritten)} | ${money(b.d1RowsWritten)} | ${money(b.d1RowsRead)} | ${money(b.d1Storage)} | ${money(f.total)} | ${money(f.perDriverWeek)} | ${n((f.perDriverWeek / WEEK_PRICE.flex) * 100, 1)} % / ${n((f.perDriverWeek / WEEK_PRICE.spark) * 100, 1)} % |`,
      );
    }
  printElse(units);
}

/** "What else the model finds": dashboards, the admin console, a large campaign, sign-in bursts. */
function printElse(units: EngineFile) {
  const lines: string[] = [];
  const d = units.dashboard;
  if (d) {
    const perSecond = 10_000 / 3;
    lines.push(
      `10,000 open driver dashboards polling every 3 s (the socket's fallback, and the admin's acting-for view): ${n(perSecond * d.requests)} requests/s, ${n(perSecond * d.doCalls)} Durable Object calls/s, ${n(perSecond * (d.d1Reads + d.d1Writes))} D1 statements/s (${n(d.d1Reads + d.d1Writes, 1)} a read); ` +
        `a month of it at 10 h a day: ${money(over(perSecond * d.requests * SEARCH_HOURS * 3600 * DAYS_A_MONTH, PRICES.workerRequests))} of Worker requests, ` +
        `${money(over(perSecond * d.requests * SEARCH_HOURS * 3600 * DAYS_A_MONTH * d.workerdCpuMs, PRICES.workerCpuMs))} of CPU at ${n(d.workerdCpuMs, 1)} ms a read (upper bound).`,
    );
  }
  const live = units.live;
  if (live) {
    // Open all 10 hours: one opening an hour (the socket lasts its ID token), the rest on the socket.
    const open = 10_000;
    const hour = live.perDashboardHour.socket;
    const burst = open * live.opening.d1Statements;
    lines.push(
      `10,000 open driver dashboards on the live socket: ${n((open * hour.requests) / 3600, 1)} requests/s, ${n((open * hour.d1) / 3600, 1)} D1 statements/s, ${n((open * hour.doCalls) / 3600, 1)} Durable Object calls/s ` +
        `(an opening: ${n(live.opening.requests)} requests, ${n(live.opening.d1Statements)} D1 statements; nothing after it but the messages, ${n(hour.messages)} in the measured hour, and ${n(live.perDashboardHour.pings)} pings an hour the runtime answers), ` +
        `a decision on screen in ${n(live.latencyMs.p50)} ms (p50), ${n(live.latencyMs.p95)} ms (p95). ` +
        `Every socket drops at once when the objects restart (a deploy): 10,000 openings are ${n(burst)} D1 statements, ${n(burst / 1000)} s of D1 at its ~1,000/s, spread by the SPA's first wait (2 s ± 20 %, doubling on a refusal).`,
    );
  }
  if (d && d.d1Reads >= 3) {
    // The offers page counts the driver's offers by status: D1 reads every one of them (measured:
    // 1,000 rows read for a driver with 1,000 offers), and not-won offers stay 90 days.
    for (const rate of OFFER_RATES) {
      const history = rate * 60 * SEARCH_HOURS * RETENTION_DAYS;
      const rowsPerSecond = (10_000 / 3) * history;
      lines.push(
        `At ${rate} offers/min a driver's offers page counts ${n(history)} rows (90 days kept) on every 3 s poll: 10,000 open dashboards read ${n(rowsPerSecond / 1e6)} million D1 rows/s, ${money(over(rowsPerSecond * SEARCH_HOURS * 3600 * DAYS_A_MONTH, PRICES.d1RowsRead))} a month at 10 h a day; one driver watching 1 h a day, ${money(((1200 * history * DAYS_A_MONTH) / 1e6) * PRICES.d1RowsRead.perMillion)} a month.`,
      );
    }
  }
  const last = units.sizes.at(-1)!;
  if (last.storageBytesPerDriver !== undefined) {
    // An offer's row in an engine's history is about the size of its row in D1 (the same columns, three indexes).
    const rowBytes = last.perD1Row?.bytes ?? last.perOffer.d1BytesUsed;
    const history = rowBytes * 2 * 60 * SEARCH_HOURS * RETENTION_DAYS;
    const stored = (drivers: number, perDriver: number) =>
      Math.max(0, (drivers * perDriver) / 1e9 - PRICES.doStoredGbMonth.included) * PRICES.doStoredGbMonth.perGb;
    lines.push(
      `Durable Object stored data: one engine's database measured ${n(last.storageBytesPerDriver / 1000, 1)} KB, ${gb(10_000 * last.storageBytesPerDriver)} at 10,000 engines (${money(stored(10_000, last.storageBytesPerDriver))} a month). ` +
        `Ninety days of offers at 2 a minute and ${n(rowBytes)} bytes each (an offer's row in D1) would be ${n(history / 1e6, 1)} MB an engine, ${gb(10_000 * history)} at 10,000 (${money(stored(10_000, history))} a month, $${PRICES.doStoredGbMonth.perGb}/GB-month): far under the 10 GB an object may hold.`,
    );
  }
  const s = units.signIn;
  if (s)
    lines.push(
      `A password sign-in: ${n(s.d1Reads, 1)} D1 reads and ${n(s.d1Writes, 1)} writes (${n(s.d1RowsWritten, 1)} rows written, the rate-limit windows among them); 1,000 sign-ins in a minute: ${n((1000 * (s.d1Reads + s.d1Writes)) / 60)} D1 statements/s.`,
    );
  const c = units.dispatch?.perRecipient;
  if (c) {
    const N = 100_000;
    lines.push(
      `A 100,000-recipient campaign: ${n(N * c.d1Writes)} D1 write statements (${n(N * c.d1RowsWritten)} rows, ${money(over(N * c.d1RowsWritten, { included: 0, perMillion: 1 }))} beyond the included rows), ${n(N * c.d1Reads)} reads, ` +
        `${gb(N * c.d1BytesUsed)} of D1, ${n(N * c.queueMessagesSent)} queue messages (${n(N * c.queueMessagesSent * 3)} operations, ${money(over(N * c.queueMessagesSent * 3, { included: 0, perMillion: 0.4 }))}), ${n(N * c.doCalls)} pacer calls, ${n(N * c.requests)} requests (delivery receipts); sent at 10 msg/s (SEND_RATE_PER_SECOND) it takes ${n(N / 10 / 3600, 1)} h at ${n(10 * (c.d1Reads + c.d1Writes))} D1 statements/s, at 50 msg/s ${n(50 * (c.d1Reads + c.d1Writes))}/s.`,
    );
  }
  const a = units.admin?.perRequest;
  if (a)
    for (const [shape, r] of Object.entries(a))
      if (shape.includes("default")) lines.push(`Admin ${shape}: ${n(r.d1Reads, 1)} D1 reads, ${n(r.medianMs, 1)} ms median on the local runtime.`);
  if (lines.length > 0) console.log(`\nWhat else the model finds\n\n${lines.map((l) => `- ${l}`).join("\n")}`);
}

for (const { label, units } of inputs()) printTables(label, units);
