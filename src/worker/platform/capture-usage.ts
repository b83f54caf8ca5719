/**
 * What one capture engine costs (docs/capacity.md): `meteredCaptureSession`, applied where the
 * Worker exports the CaptureSession Durable Object (src/worker/index.ts), hands the object's modules
 * a storage and a D1 binding that count what they do and accounts each alarm as it starts; a
 * `capture.usage` log line says, about once a minute of alarms (`CAPTURE_USAGE_LOG_MS`), what the
 * object did since the last line: alarms, polls, polls that brought nothing new, D1 statements
 * (reads and writes apart) and rows, and storage rows written. bench/engine.ts reads these lines
 * from `wrangler dev`; in production they are Workers Logs fields.
 *
 * A poll is counted when the object's last poll time moved between two alarms; it "brought
 * nothing new" when it wrote nothing to D1 and nothing to storage but its own bookkeeping (the
 * poll time and back-off keys). Work between two alarms (a route's call, a stop) counts with the
 * alarm before it.
 */
import { emptyD1Usage, meteredD1 } from "../db/metered-d1";
import { createLogger, type Logger } from "../log";
import type { CaptureSessionObject } from "./capture-session";

export type StorageUsage = {
  /** Synchronous KV API (ctx.storage.kv) and the asynchronous one (ctx.storage.put/delete): keys written or deleted. */
  kvPuts: number;
  kvDeletes: number;
  /** Puts of the poll's bookkeeping keys only (part of kvPuts). */
  bookkeepingPuts: number;
  /** SQL API (ctx.storage.sql): statements, and the rows SQLite says they read and wrote. */
  sqlStatements: number;
  sqlRowsRead: number;
  sqlRowsWritten: number;
  /** setAlarm calls. */
  alarmsSet: number;
};

export const emptyStorageUsage = (): StorageUsage => ({
  kvPuts: 0,
  kvDeletes: 0,
  bookkeepingPuts: 0,
  sqlStatements: 0,
  sqlRowsRead: 0,
  sqlRowsWritten: 0,
  alarmsSet: 0,
});

/** Keys every poll writes whatever it finds: a poll writing only these brought nothing new. */
const BOOKKEEPING = new Set(["lastPollAt", "backoff"]);

const DEFAULT_EVERY_MS = 60_000;

type Cursor = { readonly rowsRead: number; readonly rowsWritten: number };

/** ctx.storage with its writes counted (every other member handed through, bound to the real storage). */
function meteredStorage(storage: DurableObjectStorage, usage: StorageUsage, onCursor: (cursor: Cursor) => void): DurableObjectStorage {
  const pass = (target: object, prop: string | symbol) => {
    const value = Reflect.get(target, prop, target) as unknown;
    return typeof value === "function" ? value.bind(target) : value;
  };
  let kv: SyncKvStorage | null = null;
  let sql: SqlStorage | null = null;
  return new Proxy(storage, {
    get(target, prop) {
      if (prop === "kv") {
        kv ??= new Proxy(target.kv, {
          get(real, p) {
            if (p === "put")
              return (key: string, value: unknown) => {
                usage.kvPuts++;
                if (BOOKKEEPING.has(key)) usage.bookkeepingPuts++;
                return real.put(key, value);
              };
            if (p === "delete")
              return (key: string) => {
                usage.kvDeletes++;
                return real.delete(key);
              };
            return pass(real, p);
          },
        });
        return kv;
      }
      if (prop === "sql") {
        sql ??= new Proxy(target.sql, {
          get(real, p) {
            if (p === "exec")
              return (query: string, ...bindings: unknown[]) => {
                const cursor = real.exec(query, ...(bindings as SqlStorageValue[]));
                usage.sqlStatements++;
                // A cursor's row counts grow as it is read: they are summed once the caller has read it.
                onCursor(cursor);
                return cursor;
              };
            return pass(real, p);
          },
        });
        return sql;
      }
      if (prop === "put")
        return (keyOrEntries: string | Record<string, unknown>, ...rest: unknown[]) => {
          const keys = typeof keyOrEntries === "string" ? [keyOrEntries] : Object.keys(keyOrEntries);
          usage.kvPuts += keys.length;
          usage.bookkeepingPuts += keys.filter((k) => BOOKKEEPING.has(k)).length;
          return (target.put as (...a: unknown[]) => Promise<void>)(keyOrEntries, ...rest);
        };
      if (prop === "delete")
        return (keys: string | string[], ...rest: unknown[]) => {
          usage.kvDeletes += typeof keys === "string" ? 1 : keys.length;
          return (target.delete as (...a: unknown[]) => Promise<unknown>)(keys, ...rest);
        };
      if (prop === "setAlarm")
        return (...args: Parameters<DurableObjectStorage["setAlarm"]>) => {
          usage.alarmsSet++;
          return target.setAlarm(...args);
        };
      return pass(target, prop);
    },
  });
}

/** One `capture.usage` line's fields. */
export type UsageLine = {
  /** How long the line covers, ms. */
  sinceMs: number;
  alarms: number;
  polls: number;
  emptyPolls: number;
  /** D1 statements issued, and storage rows written, during the alarms whose poll brought nothing new. */
  emptyPollD1Statements: number;
  emptyPollStorageRows: number;
  d1Reads: number;
  d1Writes: number;
  d1RowsRead: number;
  d1RowsWritten: number;
  d1UnmeteredReads: number;
  d1Batches: number;
  kvPuts: number;
  kvDeletes: number;
  sqlStatements: number;
  sqlRowsRead: number;
  sqlRowsWritten: number;
  /** Storage rows written as the SQLite-backed storage bills them: KV puts and deletes, SQL rows written. */
  storageRowsWritten: number;
  alarmsSet: number;
  /** The object's SQLite database now, bytes (its KV keys and SQL tables; billed as stored data). */
  storageBytes: number;
};

export class CaptureUsage {
  /** The object's state and bindings as the object should use them: storage and D1 metered. */
  readonly ctx: DurableObjectState;
  readonly env: Env;
  /** The unmetered state, to read the database's size. */
  private readonly raw: DurableObjectState;
  private readonly d1 = emptyD1Usage();
  private readonly storage = emptyStorageUsage();
  private cursors: Cursor[] = [];
  private readonly every: number;
  private since: number;
  private alarms = 0;
  private polls = 0;
  private emptyPolls = 0;
  private emptyPollD1Statements = 0;
  private emptyPollStorageRows = 0;
  private sqlRowsRead = 0;
  private sqlRowsWritten = 0;
  /** The last poll time and the counters when the previous alarm started; undefined before the first alarm. */
  private previous: { lastPollAt: number | null; statements: number; writes: number; stored: number; rows: number } | undefined;

  constructor(ctx: DurableObjectState, env: Env, now = Date.now()) {
    this.raw = ctx;
    const storage = meteredStorage(ctx.storage, this.storage, (cursor) => {
      // Cursors are read where they are made, synchronously: summed in the next microtask, so none is
      // held for long (a stopped engine has no alarms, but its routes still run statements).
      if (this.cursors.push(cursor) === 1) queueMicrotask(() => this.sumCursors());
    });
    this.ctx = new Proxy(ctx, {
      get: (target, prop) => {
        if (prop === "storage") return storage;
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    this.env = { ...env, DB: meteredD1(env.DB, this.d1) };
    const every = Number((env as { CAPTURE_USAGE_LOG_MS?: string }).CAPTURE_USAGE_LOG_MS);
    this.every = Number.isFinite(every) && every >= 0 ? every : DEFAULT_EVERY_MS;
    this.since = now;
  }

  /**
   * Called as an alarm starts: accounts the previous alarm's work (a poll or not, new or not) and
   * logs a line when the last one is `every` ms old.
   */
  alarm(lastPollAt: number | null, log: Logger, now = Date.now()): void {
    this.sumCursors();
    const statements = this.d1.reads + this.d1.writes;
    // Writes that mean the poll found something: D1 writes, SQL rows, KV keys other than the bookkeeping.
    const stored = this.storage.kvPuts - this.storage.bookkeepingPuts + this.storage.kvDeletes + this.sqlRowsWritten;
    const before = this.previous;
    if (before && lastPollAt !== null && lastPollAt !== before.lastPollAt) {
      this.polls++;
      if (this.d1.writes === before.writes && stored === before.stored) {
        this.emptyPolls++;
        this.emptyPollD1Statements += statements - before.statements;
        this.emptyPollStorageRows += this.storageRows() - before.rows;
      }
    }
    this.alarms++;
    if (now - this.since >= this.every) {
      log.info("capture.usage", this.line(now));
      this.reset(now);
    }
    this.previous = {
      lastPollAt,
      statements: this.d1.reads + this.d1.writes,
      writes: this.d1.writes,
      stored: this.storage.kvPuts - this.storage.bookkeepingPuts + this.storage.kvDeletes + this.sqlRowsWritten,
      rows: this.storageRows(),
    };
  }

  /** The counters since the last line (exposed for tests). */
  line(now = Date.now()): UsageLine {
    this.sumCursors();
    const { d1, storage } = this;
    return {
      sinceMs: now - this.since,
      alarms: this.alarms,
      polls: this.polls,
      emptyPolls: this.emptyPolls,
      emptyPollD1Statements: this.emptyPollD1Statements,
      emptyPollStorageRows: this.emptyPollStorageRows,
      d1Reads: d1.reads,
      d1Writes: d1.writes,
      d1RowsRead: d1.rowsRead,
      d1RowsWritten: d1.rowsWritten,
      d1UnmeteredReads: d1.unmeteredReads,
      d1Batches: d1.batches,
      kvPuts: storage.kvPuts,
      kvDeletes: storage.kvDeletes,
      sqlStatements: storage.sqlStatements,
      sqlRowsRead: this.sqlRowsRead,
      sqlRowsWritten: this.sqlRowsWritten,
      storageRowsWritten: this.storageRows(),
      alarmsSet: storage.alarmsSet,
      storageBytes: this.raw.storage.sql.databaseSize,
    };
  }

  /** Storage rows written as the SQLite-backed storage bills them: KV puts and deletes, SQL rows written. */
  private storageRows() {
    return this.storage.kvPuts + this.storage.kvDeletes + this.sqlRowsWritten;
  }

  /** SQL cursors' rows, read once their statements have run and their rows been read (the cursors are then let go). */
  private sumCursors() {
    for (const c of this.cursors) {
      this.sqlRowsRead += c.rowsRead;
      this.sqlRowsWritten += c.rowsWritten;
    }
    this.cursors.length = 0;
  }

  private reset(now: number) {
    Object.assign(this.d1, emptyD1Usage());
    Object.assign(this.storage, emptyStorageUsage());
    this.alarms = this.polls = this.emptyPolls = this.emptyPollD1Statements = this.emptyPollStorageRows = 0;
    this.sqlRowsRead = this.sqlRowsWritten = 0;
    this.since = now;
  }
}

/** A CaptureSession class whose modules (capture-session.ts `bindings`) run on a metered storage and D1. */
type CaptureSessionClass = new (ctx: DurableObjectState, env: Env, bindings?: { ctx: DurableObjectState; env: Env }) => CaptureSessionObject;

/**
 * The CaptureSession with its usage metered: the runtime's state and environment go to the
 * Durable Object's base class as they are (it accepts nothing else), the metered ones to the
 * engine and the history, which know nothing of it. Each alarm first accounts the one before,
 * by the last poll time the engine keeps in storage.
 */
export function meteredCaptureSession(Session: CaptureSessionClass): new (ctx: DurableObjectState, env: Env) => CaptureSessionObject {
  return class MeteredCaptureSession extends Session {
    readonly #usage: CaptureUsage;
    readonly #kv: SyncKvStorage;

    constructor(ctx: DurableObjectState, env: Env) {
      const usage = new CaptureUsage(ctx, env);
      super(ctx, env, usage);
      this.#usage = usage;
      this.#kv = ctx.storage.kv;
    }

    override alarm(): Promise<void> {
      const userId = this.#kv.get<number>("userId") ?? null;
      this.#usage.alarm(this.#kv.get<number>("lastPollAt") ?? null, createLogger({ task: "capture", userId }));
      return super.alarm();
    }
  };
}
