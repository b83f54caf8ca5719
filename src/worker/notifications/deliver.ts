/**
 * The `notify` job (docs/notifications.md): one driver_notifications row, sent once. The row is
 * claimed with one conditional update (queued, or sending with a lapsed lease, → sending with a new
 * lease), so two deliveries of the job never both send; then sent, and ended: `sent`; `failed` with
 * why; a push service's 404/410 deletes the device's subscription and fails the row (`gone`); a
 * 429, 5xx or time-out, or an SMS the text budget refuses now, puts the row back to `queued` and
 * the job retries later (Retry-After when given, else the queue's back-off). A job that reaches the
 * dead-letter queue fails its row.
 */
import { and, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { NotificationEvent } from "../../shared/notifications";
import { RateLimited } from "../auth/rate-limit";
import { chargeRequestedText } from "../auth/sms-budget";
import { loadConfig } from "../config";
import { type Db, dbFor } from "../db/client";
import { driverNotifications, pushSubscriptions, users } from "../db/schema";
import { createSmsProvider } from "../providers/sms/provider";
import { backoffSeconds, type Job, type JobContext, RetryLater } from "../queue";
import { DELIVERY, topicOf } from "./events";
import { optedOutOfTexts } from "./notify";
import { sendPush } from "./web-push";

type Row = typeof driverNotifications.$inferSelect;
/** How a send ended: the row's end, or a retry (back to queued). */
type Ending = { status: "sent" } | { status: "failed" | "skipped"; error: string } | { status: "retry"; reason: string; retryAfterSeconds?: number };

/** A send that got no answer: the provider may have the text. Its row keeps this as its error until settled. */
const IN_DOUBT = "in_doubt";
const AMBIGUOUS = new Set(["timeout", "network_error"]);
/** How far the provider's clock may be behind ours when its record of a text is looked up. */
const CLOCK_SKEW_MS = 60_000;

const leaseMs = (env: Pick<Env, "SEND_LEASE_SECONDS">) => Number(env.SEND_LEASE_SECONDS) * 1000;

/** Takes the row for this delivery: null when it is not queued, or another delivery holds a live lease on it. */
export async function claimNotification(db: Db, id: number, now: number, lease: number): Promise<Row | null> {
  const [row] = await db
    .update(driverNotifications)
    .set({
      status: "sending",
      leaseUntil: now + lease,
      attempts: sql`${driverNotifications.attempts} + 1`,
      // A lapsed claim's send may have gone out before its delivery died: in doubt, like a time-out.
      error: sql`CASE WHEN ${driverNotifications.status} = 'sending' THEN ${IN_DOUBT} ELSE ${driverNotifications.error} END`,
      updatedAt: now,
    })
    .where(
      and(
        eq(driverNotifications.id, id),
        or(eq(driverNotifications.status, "queued"), and(eq(driverNotifications.status, "sending"), lt(driverNotifications.leaseUntil, now))),
      ),
    )
    .returning();
  return row ?? null;
}

async function pushRow(env: Env, db: Db, row: Row): Promise<Ending> {
  const device = row.subscriptionId === null ? undefined : await db.select().from(pushSubscriptions).where(eq(pushSubscriptions.id, row.subscriptionId)).get();
  if (!device) return { status: "skipped", error: "device_removed" };
  const outcome = await sendPush(env, device, row.body, { ...DELIVERY[row.event], topic: await topicOf(row.event, row.key) });
  switch (outcome.kind) {
    case "sent":
      return { status: "sent" };
    case "gone":
      // The browser dropped the subscription: it gets nothing again.
      await db.delete(pushSubscriptions).where(eq(pushSubscriptions.id, device.id));
      return { status: "failed", error: "gone" };
    case "retry":
      return { status: "retry", reason: outcome.reason, retryAfterSeconds: outcome.retryAfterSeconds };
    case "failed":
      return { status: "failed", error: outcome.reason };
  }
}

async function smsRow(env: Env, db: Db, ctx: JobContext, row: Row, now: number): Promise<Ending> {
  // The number and the opt-out as they are now (the row may have waited).
  const driver = await db
    .select({ phone: users.phone, optedOut: optedOutOfTexts(db) })
    .from(users)
    .where(and(eq(users.id, row.userId), isNull(users.erasedAt)))
    .get();
  if (!driver) return { status: "skipped", error: "erased" };
  if (driver.optedOut) return { status: "skipped", error: "opted_out" };
  const provider = createSmsProvider(env);
  // The last send got no answer (a time-out, the connection lost): it may have gone out. The
  // provider's own record says; only a text it does not hold is sent again (and not charged again).
  if (row.error === IN_DOUBT) {
    const found = await provider.lookup({ to: driver.phone, body: row.body, since: row.createdAt - CLOCK_SKEW_MS });
    if (found.found === null) return { status: "retry", reason: IN_DOUBT };
    if (found.found) return found.status === "failed" ? { status: "failed", error: found.errorCode ?? "failed" } : { status: "sent" };
  } else if (row.error === null || row.error === "sms_budget") {
    // Charged once per text: a retry after the provider's 429 or 5xx was charged before it.
    const loaded = loadConfig(env);
    if (!loaded.ok) throw new Error("The configuration is invalid (config.invalid)");
    try {
      // Every text we send counts against the one hourly budget; a full budget is a wait, not a loss.
      await chargeRequestedText({ db, config: loaded.config, log: ctx.log, now }, { purpose: `notification.${row.event}`, texted: true, mayUseReserve: false });
    } catch (err) {
      if (err instanceof RateLimited) return { status: "retry", reason: "sms_budget", retryAfterSeconds: err.retryAfterSeconds };
      throw err;
    }
  }
  const outcome = await provider.send({ to: driver.phone, body: row.body });
  if (outcome.ok) return { status: "sent" };
  if (AMBIGUOUS.has(outcome.errorCode)) return { status: "retry", reason: IN_DOUBT };
  if (outcome.retryable) return { status: "retry", reason: outcome.errorCode, retryAfterSeconds: outcome.retryAfterSeconds };
  return { status: "failed", error: outcome.errorCode };
}

/** Ends this delivery's claim (only while it still holds it: the claim's attempt). */
function settle(db: Db, row: Row, fields: Partial<typeof driverNotifications.$inferInsert>, now: number) {
  return db
    .update(driverNotifications)
    .set({ leaseUntil: null, updatedAt: now, ...fields })
    .where(and(eq(driverNotifications.id, row.id), eq(driverNotifications.status, "sending"), eq(driverNotifications.attempts, row.attempts)));
}

export async function deliverNotification(job: Extract<Job, { kind: "notify" }>, ctx: JobContext): Promise<void> {
  const db = dbFor(ctx.env.DB);
  const now = Date.now();
  if (ctx.deadLettered) {
    await db
      .update(driverNotifications)
      .set({ status: "failed", error: "dead_lettered", leaseUntil: null, updatedAt: now })
      .where(and(eq(driverNotifications.id, job.notificationId), inArray(driverNotifications.status, ["queued", "sending"])));
    ctx.log.error("notification.dead_lettered", { notificationId: job.notificationId });
    return;
  }
  const row = await claimNotification(db, job.notificationId, now, leaseMs(ctx.env));
  if (!row) return;
  let ending: Ending;
  try {
    ending = row.channel === "push" ? await pushRow(ctx.env, db, row) : await smsRow(ctx.env, db, ctx, row, now);
  } catch (err) {
    // Whatever failed before a send, the row waits for the next delivery rather than its lease.
    await settle(db, row, { status: "queued" }, Date.now());
    throw err;
  }
  const event: NotificationEvent = row.event;
  if (ending.status === "retry") {
    const delaySeconds = ending.retryAfterSeconds ?? backoffSeconds(ctx.attempts);
    // Back to queued, due after the delay (lease_until says when; the sweep leaves it until then).
    await settle(db, row, { status: "queued", error: ending.reason, leaseUntil: Date.now() + delaySeconds * 1000 }, Date.now());
    throw new RetryLater(`notify ${row.channel}: ${ending.reason}`, delaySeconds);
  }
  // Ended: what it said is not kept (the row keeps the event, the state and why), so a driver's
  // texts and pushes are not stored past their sending, and each costs D1 its key and state only.
  await settle(
    db,
    row,
    ending.status === "sent" ? { status: "sent", error: null, body: "" } : { status: ending.status, error: ending.error, body: "" },
    Date.now(),
  );
  ctx.log.info(`notification.${ending.status}`, {
    event,
    channel: row.channel,
    notificationId: row.id,
    ...(ending.status === "sent" ? {} : { error: ending.error }),
  });
}
