import { and, eq, gt, inArray, isNull, lte, ne, notExists, or, sql } from "drizzle-orm";
import { createDb, type Db } from "../db/client";
import { optOuts, users } from "../db/schema";
import { createLogger, type Logger } from "../log";
import { localPaymentsAllowed } from "../providers/payments/provider";
import { createSmsProvider } from "../providers/sms/provider";
import { sweepCommissions } from "./commissions";
import { billingMessages } from "./notify";
import { stripeEmulator } from "./payments-provider";
import { billingContextOf } from "./run-context";
import { DAY_MS } from "./service-time";

/** Reminders claimed per cron run (the cron runs every minute). */
const REMINDER_BATCH = 100;

/**
 * The reminder SMS 24 hours before a driver's service ends: once per expiration date (a payment
 * that moves the date earns a new reminder for the new date), never to an opted-out number. Rows
 * are claimed before sending, in one conditional update, so overlapping cron runs never text the
 * same driver twice; a send that fails is logged, not retried (a late reminder is worse than none).
 */
export async function sendExpiryReminders(env: Env, db: Db, log: Logger, now: number): Promise<number> {
  const due = db
    .select({ id: users.id })
    .from(users)
    .where(
      and(
        inArray(users.app, ["flex", "spark"]),
        gt(users.expirationAt, now),
        lte(users.expirationAt, now + DAY_MS),
        eq(users.isAdmin, false),
        eq(users.phoneVerified, true),
        eq(users.smsOptOut, false),
        or(isNull(users.expiryReminderFor), ne(users.expiryReminderFor, users.expirationAt)),
        notExists(
          db
            .select({ one: sql`1` })
            .from(optOuts)
            .where(and(eq(optOuts.phone, users.phone), eq(optOuts.channel, "sms"))),
        ),
      ),
    )
    .limit(REMINDER_BATCH);
  const claimed = await db
    .update(users)
    .set({ expiryReminderFor: sql`${users.expirationAt}` })
    .where(and(inArray(users.id, due), or(isNull(users.expiryReminderFor), ne(users.expiryReminderFor, users.expirationAt))))
    .returning({ id: users.id, phone: users.phone, language: users.language, expirationAt: users.expirationAt });
  if (claimed.length === 0) return 0;
  const sms = createSmsProvider(env);
  const paymentUrl = `${env.APP_ORIGIN.replace(/\/$/, "")}/payment`;
  let sent = 0;
  for (const driver of claimed) {
    const outcome = await sms.send({ to: driver.phone, body: billingMessages.expiryReminder(driver.language, driver.expirationAt!, paymentUrl) });
    if (outcome.ok) sent++;
    else log.warn("reminders.failed", { userId: driver.id, errorCode: outcome.errorCode });
  }
  log.info("reminders.sent", { claimed: claimed.length, sent });
  return sent;
}

/** The cron's billing work: expiry reminders, commission transfers and reversals due, and the Stripe emulator's own upkeep. */
export async function runBillingCron(env: Env, now: number, waitUntil: (promise: Promise<unknown>) => void): Promise<void> {
  const log = createLogger({ task: "billing" });
  const db = createDb(env.DB);
  const ctx = billingContextOf({ env, db, log, waitUntil });
  const steps: [string, () => Promise<unknown>][] = [
    ["reminders", () => sendExpiryReminders(env, db, log, now)],
    ["commissions", () => sweepCommissions(ctx)],
  ];
  if (localPaymentsAllowed(env)) steps.push(["local_provider", () => stripeEmulator(ctx).housekeeping(now)]);
  // One step failing (an SMS outage) must not stop the others.
  for (const [name, step] of steps) {
    try {
      await step();
    } catch (err) {
      log.error(`billing.${name}_failed`, { error: err instanceof Error ? err.message : String(err) });
    }
  }
}
