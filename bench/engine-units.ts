/**
 * bench:engine's unit costs (docs/capacity.md): one size's figures per poll, per offer recorded
 * and per searching driver-day, from the engines' capture.usage lines, the platform's counts and
 * the D1 file (bench/units.ts), and the table that prints them. Each shown offer is recorded once
 * (the scale table checks it), so "per offer recorded" divides by the offers shown.
 */
import { type D1Bytes, per } from "./units.ts";

/** A searching driver-day: 10 hours at the interval. */
const SEARCH_HOURS = 10;
/**
 * Blocks a driver wins in a day, when D1 holds only won blocks: 4 (eight hours of two-hour blocks).
 * Blocks cannot overlap and a day has 24 hours, so it stays a handful however many offers come.
 */
export const WON_BLOCKS_PER_DRIVER_DAY = 4;

/**
 * The engines' own databases (capture.usage's storageBytes, a size at each line): the mean size at
 * the last line, and the growth from each engine's first line to its last over the polls between.
 */
export function storageGrowth(lines: Record<string, unknown>[]) {
  const byEngine = new Map<unknown, Record<string, unknown>[]>();
  for (const l of lines) byEngine.set(l.userId, [...(byEngine.get(l.userId) ?? []), l]);
  let last = 0;
  let growth = 0;
  let polls = 0;
  for (const list of byEngine.values()) {
    last += Number(list.at(-1)!.storageBytes ?? 0);
    growth += Number(list.at(-1)!.storageBytes ?? 0) - Number(list[0]!.storageBytes ?? 0);
    for (const l of list.slice(1)) polls += Number(l.polls ?? 0);
  }
  return { meanBytes: per(last, byEngine.size), growth, polls };
}

export type EngineUnits = ReturnType<typeof engineUnits>;

/**
 * `usage`: the capture.usage lines lying wholly inside the window, summed (D1 statements, rows and
 * storage writes per poll); `polls`, `shown` and `calls`: the platform's counts in the window;
 * `bytesFrom`/`bytesTo`: the D1 file at its ends.
 */
export function engineUnits(m: {
  drivers: number;
  windowMs: number;
  intervalMs: number;
  assumedOffersPerMinute: number;
  polls: number;
  shown: number;
  calls: number;
  workerdCpuSeconds: number;
  usage: Record<string, number>;
  storage: ReturnType<typeof storageGrowth>;
  bytesFrom: D1Bytes;
  bytesTo: D1Bytes;
  /** Blocks the engines won in the window (the platform's accepts). */
  won: number;
}) {
  const u = (key: string) => m.usage[key] ?? 0;
  const offersPerPoll = per(m.shown, m.polls);
  // Offers in the engines' own lines' span: their polls at the window's rate of offers per poll.
  const offersInLines = offersPerPoll * u("polls");
  const emptyStorage = per(u("emptyPollStorageRows"), u("emptyPolls"));
  const perOfferBytes = per(m.bytesTo.usedBytes - m.bytesFrom.usedBytes, m.shown);
  const dayOffers = m.assumedOffersPerMinute * SEARCH_HOURS * 60;
  // What D1 holds: a row per offer shown, or (the history in the engines' objects) per block won.
  // No more rows than blocks won is the second, also when every offer shown was won (a short run's
  // few offers, which the fake lists until someone takes them, often all are).
  const rowsAdded = m.bytesTo.offers - m.bytesFrom.offers;
  const d1Rows: "every offer" | "won blocks" = rowsAdded <= m.won ? "won blocks" : "every offer";
  const rowsPerOffer = per(rowsAdded, m.shown);
  const perD1Row = {
    d1Writes: per(per(u("d1Writes"), offersInLines), rowsPerOffer),
    d1RowsWritten: per(per(u("d1RowsWritten"), offersInLines), rowsPerOffer),
    bytes: per(m.bytesTo.usedBytes - m.bytesFrom.usedBytes, rowsAdded),
  };
  const dayRows = d1Rows === "won blocks" ? Math.min(WON_BLOCKS_PER_DRIVER_DAY, dayOffers) : dayOffers;
  return {
    drivers: m.drivers,
    windowSeconds: m.windowMs / 1000,
    polls: m.polls,
    meteredPolls: u("polls"),
    offersShown: m.shown,
    offersPerDriverMinute: per(m.shown, (m.drivers * m.windowMs) / 60_000),
    offersPerPoll,
    perPoll: {
      d1Reads: per(u("d1Reads"), u("polls")),
      d1Writes: per(u("d1Writes"), u("polls")),
      d1RowsRead: per(u("d1RowsRead"), u("polls")),
      d1RowsWritten: per(u("d1RowsWritten"), u("polls")),
      d1UnmeteredReads: per(u("d1UnmeteredReads"), u("polls")),
      storageRowsWritten: per(u("storageRowsWritten"), u("polls")),
      alarms: per(u("alarms"), u("polls")),
      alarmsSet: per(u("alarmsSet"), u("polls")),
      platformCalls: per(m.calls, m.polls),
      workerdCpuMs: per(m.workerdCpuSeconds * 1000, m.polls),
    },
    emptyPoll: {
      share: per(u("emptyPolls"), u("polls")),
      d1Statements: per(u("emptyPollD1Statements"), u("emptyPolls")),
      storageRowsWritten: emptyStorage,
    },
    perOffer: {
      d1Writes: per(u("d1Writes"), offersInLines),
      d1RowsWritten: per(u("d1RowsWritten"), offersInLines),
      d1RowsAdded: per(m.bytesTo.offers - m.bytesFrom.offers, m.shown),
      d1BytesUsed: perOfferBytes,
      d1FileBytes: per(m.bytesTo.fileBytes - m.bytesFrom.fileBytes, m.shown),
      storageRowsWritten: per(u("storageRowsWritten") - emptyStorage * u("polls"), offersInLines),
      // Page-granular (an engine's database grows a page at a time): needs volume, like the D1 file.
      storageBytes: per(m.storage.growth, m.storage.polls * offersPerPoll),
    },
    /** One engine's own database (KV keys and SQL tables), bytes, at the end of the window. */
    storageBytesPerDriver: m.storage.meanBytes,
    /** What one row of D1's `offers` costs, and what they are rows of. */
    d1Rows,
    won: m.won,
    perD1Row,
    driverDay: { polls: (SEARCH_HOURS * 3_600_000) / m.intervalMs, offers: dayOffers, d1Rows: dayRows, d1Bytes: perD1Row.bytes * dayRows },
  };
}

const num = (x: number, digits = 2) => x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

/** The unit-cost table, a column per size, and the two lines docs/capacity.md quotes. */
export function printEngineUnits(rows: EngineUnits[], intervalMs: number, assumedOffersPerMinute: number) {
  if (rows.length === 0) return;
  console.log(
    "\n(c) unit costs, per poll and per offer recorded (the engines' capture.usage lines, the platform's counts, the D1 file)\n" +
      `| unit | ${rows.map((r) => `N = ${r.drivers}`).join(" | ")} |\n|---|${rows.map(() => "---|").join("")}`,
  );
  const line = (label: string, f: (r: EngineUnits) => string) => console.log(`| ${label} | ${rows.map(f).join(" | ")} |`);
  line("polls measured (platform / engines' lines)", (r) => `${r.polls} / ${r.meteredPolls}`);
  line("offers shown per driver-minute (this run)", (r) => num(r.offersPerDriverMinute));
  line("per poll: D1 statements read / write", (r) => `${num(r.perPoll.d1Reads, 3)} / ${num(r.perPoll.d1Writes, 3)}`);
  line("per poll: D1 rows read / written (meta; reads through raw() unmetered)", (r) => `${num(r.perPoll.d1RowsRead)} / ${num(r.perPoll.d1RowsWritten)}`);
  line("per poll: Durable Object storage rows written (setAlarm apart)", (r) => num(r.perPoll.storageRowsWritten));
  line("per poll: alarms run / set", (r) => `${num(r.perPoll.alarms)} / ${num(r.perPoll.alarmsSet)}`);
  line("per poll: platform calls", (r) => num(r.perPoll.platformCalls, 3));
  line("per poll: workerd CPU (upper bound)", (r) => `${r.perPoll.workerdCpuMs.toFixed(1)} ms`);
  line(
    "empty polls (share) / their D1 statements / storage rows",
    (r) => `${pct(r.emptyPoll.share)} / ${num(r.emptyPoll.d1Statements, 3)} / ${num(r.emptyPoll.storageRowsWritten)}`,
  );
  line("per offer: D1 write statements / rows written (meta)", (r) => `${num(r.perOffer.d1Writes, 3)} / ${num(r.perOffer.d1RowsWritten)}`);
  line(
    "per offer: D1 rows added (offers) / bytes in use / file bytes",
    (r) => `${num(r.perOffer.d1RowsAdded)} / ${num(r.perOffer.d1BytesUsed, 0)} / ${num(r.perOffer.d1FileBytes, 0)}`,
  );
  line(
    "per offer: Durable Object storage rows written / bytes (page-granular)",
    (r) => `${num(r.perOffer.storageRowsWritten)} / ${num(r.perOffer.storageBytes, 0)}`,
  );
  line("one engine's storage (its SQLite database)", (r) => `${num(r.storageBytesPerDriver, 0)} bytes`);
  line(
    "D1 rows are (offers shown / blocks won / rows added)",
    (r) => `${r.d1Rows} (${r.offersShown} / ${r.won} / ${num(r.perOffer.d1RowsAdded * r.offersShown, 0)})`,
  );
  line(
    "per D1 row: write statements / rows written (meta) / bytes in use",
    (r) => `${num(r.perD1Row.d1Writes, 3)} / ${num(r.perD1Row.d1RowsWritten)} / ${num(r.perD1Row.bytes, 0)}`,
  );
  const last = rows.at(-1)!;
  console.log(
    `\nD1 growth per searching driver-day: ${Math.round(last.driverDay.d1Bytes)} bytes (${SEARCH_HOURS} h at a ${intervalMs / 1000} s interval, ${assumedOffersPerMinute} new offers a minute assumed, this run showed ${num(last.offersPerDriverMinute)}; ` +
      (last.d1Rows === "won blocks"
        ? `D1 holds won blocks only: ${num(last.driverDay.d1Rows, 0)} won a day × ${num(last.perD1Row.bytes, 0)} bytes)`
        : `D1 holds every offer: ${num(last.driverDay.d1Rows, 0)} a day × ${num(last.perD1Row.bytes, 0)} bytes)`),
  );
  console.log(`D1 statements per poll that brings nothing new: ${num(last.emptyPoll.d1Statements, 3)}`);
}
