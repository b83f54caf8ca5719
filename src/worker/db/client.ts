import { drizzle } from "drizzle-orm/d1";
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
