/**
 * Unit costs (docs/capacity.md): what the benches measure per poll, per offer, per recipient and
 * per dashboard read, and write to bench/results/units-<bench>-<time>.json (and
 * units-<bench>-latest.json) for `npm run bench:capacity`.
 *
 * - The Worker's own counters: the `capture.usage` lines of each CaptureSession
 *   (src/worker/platform/capture-usage.ts) and the `worker.usage` lines of the Worker with
 *   USAGE_LOG=1 (src/worker/usage.ts), read from `wrangler dev`'s output (harness `onLog`).
 * - The D1 database's bytes: the local D1 SQLite file in the bench's state, read-only, through
 *   SQLite's dbstat (bytes in use, indexes included, and the file's pages).
 * - The CPU of the workerd process (the Worker, its Durable Objects and local D1 together): an
 *   upper bound on the Worker's CPU.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";

export type LogLine = { at: number; fields: Record<string, unknown> };

/** Collects the Worker's structured log lines (one JSON object each) as they come out of wrangler dev. */
export class WorkerLog {
  readonly lines: LogLine[] = [];
  readonly onLog = (line: string) => {
    const start = line.indexOf('{"level"');
    if (start < 0) return;
    try {
      this.lines.push({ at: Date.now(), fields: JSON.parse(line.slice(start)) as Record<string, unknown> });
    } catch {
      // a line that is not one of ours
    }
  };

  /** Lines of this message whose whole span (received time less `sinceMs`) lies within [from, to]. */
  within(msg: string, from: number, to: number): Record<string, unknown>[] {
    return this.lines.filter((l) => l.fields.msg === msg && l.at <= to && l.at - Number(l.fields.sinceMs ?? 0) >= from).map((l) => l.fields);
  }

  /** The last line of this message so far. */
  last(msg: string): Record<string, unknown> | undefined {
    for (let i = this.lines.length - 1; i >= 0; i--) if (this.lines[i]!.fields.msg === msg) return this.lines[i]!.fields;
    return undefined;
  }
}

/** Sums numeric fields over lines. */
export function sum(lines: Record<string, unknown>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of lines) for (const [k, v] of Object.entries(l)) if (typeof v === "number") out[k] = (out[k] ?? 0) + v;
  return out;
}

/** Numeric differences b − a of the fields both have (nested objects flattened with a dot). */
export function difference(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): Record<string, number> {
  const flat = (o: Record<string, unknown> | undefined, prefix = ""): Record<string, number> =>
    Object.fromEntries(
      Object.entries(o ?? {}).flatMap(([k, v]) =>
        typeof v === "number" ? [[prefix + k, v]] : v && typeof v === "object" ? Object.entries(flat(v as Record<string, unknown>, `${k}.`)) : [],
      ),
    );
  const fa = flat(a);
  return Object.fromEntries(Object.entries(flat(b)).map(([k, v]) => [k, v - (fa[k] ?? 0)]));
}

export type D1Bytes = {
  /** The database file: page count × page size (grows a page at a time). */
  fileBytes: number;
  /** Bytes in use in every table's and index's pages (page size less the unused bytes), byte-granular. */
  usedBytes: number;
  /** Rows in the offers table. */
  offers: number;
};

/** The local D1 database of a `--persist-to` state, read-only (the running Worker keeps writing it). */
export function d1Bytes(state: string): D1Bytes {
  const dir = `${state}/v3/d1/miniflare-D1DatabaseObject`;
  const file = readdirSync(dir).find((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  if (!file) throw new Error(`no D1 database in ${dir}`);
  const db = new DatabaseSync(`${dir}/${file}`, { readOnly: true });
  try {
    const pages = db.prepare("SELECT (SELECT page_count FROM pragma_page_count) * (SELECT page_size FROM pragma_page_size) AS bytes").get() as {
      bytes: number;
    };
    const used = db.prepare("SELECT sum(pgsize - unused) AS used FROM dbstat").get() as { used: number };
    const offers = db.prepare("SELECT count(*) AS n FROM offers").get() as { n: number };
    return { fileBytes: pages.bytes, usedBytes: used.used, offers: offers.n };
  } finally {
    db.close();
  }
}

/** CPU seconds (user + system) of the workerd processes started under this process (wrangler dev's runtime). */
export function workerdCpuSeconds(): number {
  const procs = new Map<number, { ppid: number; cpu: number; comm: string }>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      procs.set(Number(name), { ppid: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / 100, comm });
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  for (const p of procs.values()) {
    if (!p.comm.startsWith("workerd")) continue;
    for (let up = p.ppid, hops = 0; up > 1 && hops < 10; up = procs.get(up)?.ppid ?? 0, hops++) {
      if (up === process.pid) {
        total += p.cpu;
        break;
      }
    }
  }
  return total;
}

const commit = () => {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
};

/** Writes a bench's unit costs where `npm run bench:capacity` finds them; answers the file's path. */
export function saveUnits(bench: string, units: Record<string, unknown>): string {
  mkdirSync("bench/results", { recursive: true });
  const body = JSON.stringify({ bench, at: new Date().toISOString(), commit: commit(), ...units }, null, 2);
  const path = `bench/results/units-${bench}-${new Date().toISOString().replace(/[:.]/g, "-")}.json`;
  writeFileSync(path, body);
  writeFileSync(`bench/results/units-${bench}-latest.json`, body);
  return path;
}

/** x / y, or 0 when there is nothing to divide by. */
export const per = (x: number, y: number) => (y > 0 ? x / y : 0);
