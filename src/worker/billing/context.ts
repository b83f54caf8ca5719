import type { Context } from "hono";
import type { AppEnv } from "../context";
import type { Db } from "../db/client";
import type { Logger } from "../log";

/** What billing code needs from the request (or the cron run, or the embedded provider) that runs it. */
export type BillingContext = {
  env: Env;
  db: Db;
  log: Logger;
  /** Keeps follow-up work (a commission transfer, an SMS) running after the answer is sent. */
  waitUntil: (promise: Promise<unknown>) => void;
};

export function billingContext(c: Context<AppEnv>): BillingContext {
  return { env: c.env, db: c.var.db, log: c.var.log, waitUntil: (promise) => c.executionCtx.waitUntil(promise) };
}
