/**
 * A D1 binding that counts what goes through it (docs/capacity.md): statements executed, reads and
 * writes apart, and the rows D1 says they read and wrote. It wraps the binding and hands every
 * call on to it unchanged; the counters belong to whoever made the wrapper (a Durable Object, or
 * the Worker when its metering is on), which reads and resets them when it logs.
 *
 * Rows read and written come from each result's `meta` (D1's own billing figures: a write counts
 * the rows of its indexes too). `raw()` and `first()` answer without `meta`, and drizzle reads most
 * SELECTs through `raw()`: those statements are counted, their rows are not (`unmeteredReads`).
 */

export type D1Usage = {
  /** Statements that only read (SELECT, or WITH … SELECT). */
  reads: number;
  /** Statements that write (INSERT, UPDATE, DELETE, REPLACE; anything else that is not a read). */
  writes: number;
  /** Rows read and written, as D1's `meta` reports them (statements run through `raw()`/`first()` have none). */
  rowsRead: number;
  rowsWritten: number;
  /** Read statements whose rows D1 did not report (run through `raw()` or `first()`). */
  unmeteredReads: number;
  /** Batches sent (each is one round trip carrying several statements). */
  batches: number;
};

export const emptyD1Usage = (): D1Usage => ({ reads: 0, writes: 0, rowsRead: 0, rowsWritten: 0, unmeteredReads: 0, batches: 0 });

/** Whether a statement only reads: a SELECT, or a WITH … SELECT that writes nothing. */
export function isRead(sql: string): boolean {
  const s = sql.trimStart().slice(0, 2000).toLowerCase();
  if (s.startsWith("select") || s.startsWith("pragma") || s.startsWith("explain")) return true;
  return s.startsWith("with") && !/\b(insert|update|delete|replace)\b/.test(s);
}

type Meta = { rows_read?: number; rows_written?: number } | undefined;

function count(usage: D1Usage, read: boolean, meta: Meta) {
  if (read) usage.reads++;
  else usage.writes++;
  if (meta) {
    usage.rowsRead += meta.rows_read ?? 0;
    usage.rowsWritten += meta.rows_written ?? 0;
  } else if (read) usage.unmeteredReads++;
}

class MeteredStatement {
  constructor(
    readonly inner: D1PreparedStatement,
    readonly read: boolean,
    private readonly usage: D1Usage,
  ) {}

  bind(...values: unknown[]) {
    return new MeteredStatement(this.inner.bind(...values), this.read, this.usage);
  }

  async first(column?: string) {
    const row = column === undefined ? await this.inner.first() : await this.inner.first(column);
    count(this.usage, this.read, undefined);
    return row;
  }

  async run() {
    const result = await this.inner.run();
    count(this.usage, this.read, result.meta);
    return result;
  }

  async all() {
    const result = await this.inner.all();
    count(this.usage, this.read, result.meta);
    return result;
  }

  async raw(options?: { columnNames?: boolean }) {
    const rows = await this.inner.raw(options as { columnNames?: false });
    count(this.usage, this.read, undefined);
    return rows;
  }
}

/** The binding, counting into `usage` (which the caller owns, reads and resets). */
export function meteredD1(d1: D1Database, usage: D1Usage): D1Database {
  const metered = {
    prepare: (query: string) => new MeteredStatement(d1.prepare(query), isRead(query), usage),
    batch: async (statements: MeteredStatement[]) => {
      const results = await d1.batch(statements.map((s) => s.inner));
      usage.batches++;
      results.forEach((r, i) => {
        count(usage, statements[i]!.read, r.meta);
      });
      return results;
    },
    exec: async (query: string) => {
      const result = await d1.exec(query);
      // exec runs several statements and reports only how many: counted as writes unless all read.
      const read = query.split(";").every((s) => s.trim() === "" || isRead(s));
      for (let i = 0; i < result.count; i++) count(usage, read, undefined);
      return result;
    },
    // Sessions (read replication) are not used by this app; they pass through uncounted.
    withSession: (constraint?: string) => d1.withSession(constraint),
    dump: () => d1.dump(),
  };
  return metered as unknown as D1Database;
}
