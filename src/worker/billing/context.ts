import type { Db } from "../db/client";
import type { Logger } from "../log";
import type { DeliverEvent } from "../providers/payments/types";

/** What billing code needs from the request (or the cron run) that runs it: run-context.ts makes it. */
export type BillingContext = {
  env: Env;
  db: Db;
  log: Logger;
  /** Keeps follow-up work (a commission transfer, an SMS) running after the answer is sent. */
  waitUntil: (promise: Promise<unknown>) => void;
  /** Where the Stripe emulator's events go: the Stripe webhook handler, with this same context. */
  deliverStripeEvent: DeliverEvent;
};
