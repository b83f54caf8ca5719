import { type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { createMiddleware } from "hono/factory";
import * as schema from "./schema";

export function createDb(d1: D1Database) {
  return drizzle(d1, { schema });
}

export type Db = ReturnType<typeof createDb>;

// Building the client walks the whole schema (about half a millisecond, more than a bare route
// costs: bench/README.md "bench:load"), so each binding gets one client per isolate, not one per request.
const clients = new WeakMap<D1Database, Db>();

export function dbFor(d1: D1Database): Db {
  let db = clients.get(d1);
  if (!db) {
    db = createDb(d1);
    clients.set(d1, db);
  }
  return db;
}

/** Puts the drizzle client on `c.var.db`; handlers never build clients themselves. */
export const dbMiddleware = createMiddleware<{ Bindings: Env; Variables: { db: Db } }>(async (c, next) => {
  c.set("db", dbFor(c.env.DB));
  await next();
});

/** A list of column names for an INSERT written with drizzle's `sql` (INSERT … SELECT): unqualified, from the schema. */
export function columnNames(...columns: { name: string }[]): SQL {
  return sql.join(
    columns.map((column) => sql.identifier(column.name)),
    sql`, `,
  );
}

/** The value an upsert's conflicting row would have written (ON CONFLICT … DO UPDATE SET col = excluded.col). */
export function excluded(column: { name: string }): SQL {
  return sql`excluded.${sql.identifier(column.name)}`;
}

/** A stored E.164 number ending with these digits (a search for the last 4 to 9 of a number). */
export function phoneEndsWith(phone: SQL | SQLiteColumn, digits: string): SQL {
  return sql`substr(${phone}, ${-digits.length}) = ${digits}`;
}

/**
 * A list as a subquery of one JSON parameter (for inArray / notInArray): D1 allows 100 bound
 * parameters per statement, and a list of phones or ids can be longer.
 */
export function jsonList(values: readonly (string | number)[]): SQL {
  return sql`(SELECT value FROM json_each(${JSON.stringify(values)}))`;
}
