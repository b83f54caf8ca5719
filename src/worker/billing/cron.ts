import { createDb } from "../db/client";
import { createLogger } from "../log";
import { localPaymentsAllowed } from "../providers/payments/provider";
import { sweepCommissions } from "./commissions";
import { stripeEmulator } from "./payments-provider";
import { billingContextOf } from "./run-context";

/**
 * The cron's billing work: commission transfers and reversals due, and the Stripe emulator's own
 * upkeep. (The reminder before service ends is a driver notification: notifications/service-ending.ts.)
 */
export async function runBillingCron(env: Env, now: number, waitUntil: (promise: Promise<unknown>) => void): Promise<void> {
  const log = createLogger({ task: "billing" });
  const db = createDb(env.DB);
  const ctx = billingContextOf({ env, db, log, waitUntil });
  const steps: [string, () => Promise<unknown>][] = [["commissions", () => sweepCommissions(ctx)]];
  if (localPaymentsAllowed(env)) steps.push(["local_provider", () => stripeEmulator(ctx).housekeeping(now)]);
  // One step failing must not stop the others.
  for (const [name, step] of steps) {
    try {
      await step();
    } catch (err) {
      log.error(`billing.${name}_failed`, { error: err instanceof Error ? err.message : String(err) });
    }
  }
}
