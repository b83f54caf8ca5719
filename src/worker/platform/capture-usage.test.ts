/**
 * The capture engine's meter: D1 statements and rows counted through the wrapped binding (against
 * the real local D1), storage writes counted through the wrapped state (a real Durable Object's
 * storage), and the capture.usage line: polls, polls that brought nothing new, and the reset.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { emptyD1Usage, isRead, meteredD1 } from "../db/metered-d1";
import { createLogger } from "../log";
import { captureSessionOf } from "./capture";
import { CaptureUsage, type UsageLine } from "./capture-usage";

describe("the metered D1 binding", () => {
  it("tells reads from writes", () => {
    expect(isRead("select 1")).toBe(true);
    expect(isRead("  WITH x AS (SELECT 1) SELECT * FROM x")).toBe(true);
    expect(isRead('insert into "offers" ("id") values (?)')).toBe(false);
    expect(isRead("with x as (select 1) insert into t select * from x")).toBe(false);
    expect(isRead('update "users" set "status" = ?')).toBe(false);
  });

  it("counts statements, batches and the rows D1 reports", async () => {
    const usage = emptyD1Usage();
    const d1 = meteredD1(env.DB, usage);
    await d1.prepare("CREATE TABLE IF NOT EXISTS meter_probe (id INTEGER PRIMARY KEY, v TEXT)").run();
    await d1.batch([
      d1.prepare("INSERT INTO meter_probe (v) VALUES (?)").bind("a"),
      d1.prepare("INSERT INTO meter_probe (v) VALUES (?)").bind("b"),
      d1.prepare("SELECT count(*) AS n FROM meter_probe"),
    ]);
    const rows = await d1.prepare("SELECT v FROM meter_probe").raw();
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(await d1.prepare("SELECT v FROM meter_probe WHERE v = ?").bind("a").first("v")).toBe("a");
    expect(usage).toMatchObject({ writes: 3, reads: 3, batches: 1, unmeteredReads: 2 });
    // Two inserted rows at least (D1 counts what it wrote); the count read the table.
    expect(usage.rowsWritten).toBeGreaterThanOrEqual(2);
    expect(usage.rowsRead).toBeGreaterThanOrEqual(2);
    await env.DB.prepare("DROP TABLE meter_probe").run();
  });
});

/** A stand-in for a Durable Object's state: KV in a map, SQL cursors that say what they wrote. */
function fakeState() {
  const kv = new Map<string, unknown>();
  const storage = {
    kv: { get: (k: string) => kv.get(k), put: (k: string, v: unknown) => void kv.set(k, v), delete: (k: string) => kv.delete(k) },
    sql: { exec: (_q: string) => ({ rowsRead: 1, rowsWritten: 2 }), databaseSize: 12_288 },
    setAlarm: async (_at: number) => {},
  };
  return { storage, kv } as unknown as DurableObjectState & { kv: Map<string, unknown> };
}

function meterWithLog(every = 60_000) {
  const lines: UsageLine[] = [];
  const log = { ...createLogger(), info: (msg: string, fields?: Record<string, unknown>) => msg === "capture.usage" && lines.push(fields as UsageLine) };
  const state = fakeState();
  const fakeDb = {} as D1Database;
  const usage = new CaptureUsage(state, { ...env, DB: fakeDb, CAPTURE_USAGE_LOG_MS: String(every) } as Env, 0);
  return { usage, lines, log: log as unknown as ReturnType<typeof createLogger>, state };
}

describe("the capture.usage line", () => {
  it("counts polls, and those that wrote nothing but their bookkeeping as bringing nothing new", () => {
    const { usage, log } = meterWithLog();
    const kv = usage.ctx.storage.kv;
    usage.alarm(null, log, 1000);
    // Alarm 1 polls and finds nothing: only the poll time is written.
    kv.put("lastPollAt", 1100);
    usage.alarm(1100, log, 3000);
    // Alarm 2 polls and decides an offer (a key of its own), and writes a SQL row.
    kv.put("lastPollAt", 3100);
    kv.put("seen:OF1", { status: "disliked" });
    usage.ctx.storage.sql.exec("INSERT INTO offers VALUES (1)");
    usage.alarm(3100, log, 5000);
    // Alarm 3 waits (no poll: the poll time did not move).
    usage.alarm(3100, log, 7000);
    expect(usage.line(7000)).toMatchObject({
      alarms: 4,
      polls: 2,
      emptyPolls: 1,
      emptyPollStorageRows: 1,
      kvPuts: 3,
      sqlStatements: 1,
      sqlRowsWritten: 2,
      sqlRowsRead: 1,
      storageRowsWritten: 5,
      storageBytes: 12_288,
    });
  });

  it("reads a SQL cursor's rows once it has been read where it was made, and lets it go", async () => {
    const { usage } = meterWithLog();
    const cursor = { rowsRead: 0, rowsWritten: 0 };
    (usage.ctx.storage.sql as unknown as { exec: () => typeof cursor }).exec = () => cursor;
    const made = usage.ctx.storage.sql.exec("INSERT INTO offers VALUES (1), (2)") as unknown as typeof cursor;
    // Read where it was made: its counts are final now.
    made.rowsWritten = 2;
    await Promise.resolve();
    // Anything the cursor says later is not counted: it was let go.
    made.rowsWritten = 100;
    expect(usage.line()).toMatchObject({ sqlStatements: 1, sqlRowsWritten: 2 });
  });

  it("logs a line once the last is old enough, then counts afresh", () => {
    const { usage, lines, log } = meterWithLog(10_000);
    usage.alarm(null, log, 1000);
    usage.ctx.storage.kv.put("lastPollAt", 1);
    usage.ctx.storage.kv.delete("seen:old");
    usage.alarm(1, log, 9000);
    expect(lines).toHaveLength(0);
    usage.alarm(1, log, 10_000);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ sinceMs: 10_000, alarms: 3, polls: 1, emptyPolls: 0, kvPuts: 1, kvDeletes: 1, storageRowsWritten: 2 });
    expect(usage.line(12_000)).toMatchObject({ sinceMs: 2000, alarms: 0, polls: 0, kvPuts: 0, storageRowsWritten: 0 });
  });

  it("meters a real Durable Object's storage and hands everything else through", async () => {
    const stub = captureSessionOf(env, 987_654_321);
    await runInDurableObject(stub, async (_instance, state) => {
      state.storage.sql.exec("CREATE TABLE IF NOT EXISTS probe (v)");
      const usage = new CaptureUsage(state, env);
      const { storage } = usage.ctx;
      storage.kv.put("probe", 1);
      expect(storage.kv.get("probe")).toBe(1);
      storage.kv.delete("probe");
      expect(storage.sql.exec("SELECT count(*) AS n FROM probe").one().n).toBe(0);
      storage.sql.exec("INSERT INTO probe VALUES (1), (2)");
      await storage.setAlarm(Date.now() + 3_600_000);
      await storage.deleteAlarm();
      expect(usage.ctx.id.toString()).toBe(state.id.toString());
      expect(usage.line()).toMatchObject({ kvPuts: 1, kvDeletes: 1, sqlStatements: 2, sqlRowsWritten: 2, alarmsSet: 1 });
      expect(usage.line().storageBytes).toBe(state.storage.sql.databaseSize);
      expect(usage.line().storageBytes).toBeGreaterThan(0);
      state.storage.sql.exec("DROP TABLE probe");
    });
  });
});
