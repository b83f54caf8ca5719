/**
 * Accepting a notification (docs/notifications.md, "The path of a notification"): the driver's
 * channel for the event (their choice, else push where they have a device and SMS otherwise), a
 * row in driver_notifications per device and for the SMS, each with its own unique key so an event
 * replayed is notified once, and a `notify` job per row to send. What cannot be sent is a row too,
 * `skipped` with why: no device for a push-only choice (never an SMS instead), the SMS opt-out, or
 * "none" chosen.
 */
import { and, eq, exists, isNull, type SQL, sql } from "drizzle-orm";
import { channelFor, type NotificationEvent, type PushPayload } from "../../shared/notifications";
import { type Db, dbFor } from "../db/client";
import { driverNotifications, notificationChannels, optOuts, pushSubscriptions, users } from "../db/schema";
import type { Logger } from "../log";
import type { Job } from "../queue";
import { type NotificationContent, topicOf } from "./events";

type NewRow = typeof driverNotifications.$inferInsert;

/** The driver said no to texts: the account's opt-out, or a STOP the number sent (opt_outs), as messaging and billing read it. */
export const optedOutOfTexts = (db: Db): SQL<number> =>
  sql<number>`(${users.smsOptOut} OR ${exists(
    db
      .select({ one: sql`1` })
      .from(optOuts)
      .where(and(eq(optOuts.phone, users.phone), eq(optOuts.channel, "sms"))),
  )})`;

/** Queues the `notify` job of each row; a failure leaves the rows queued for the cron sweep (sweep.ts). */
export async function queueNotifications(env: Pick<Env, "DISPATCH">, ids: readonly number[], log: Logger): Promise<void> {
  for (let i = 0; i < ids.length; i += 100) {
    const messages = ids.slice(i, i + 100).map((notificationId) => ({ body: { kind: "notify", notificationId } satisfies Job }));
    try {
      await env.DISPATCH.sendBatch(messages);
    } catch (err) {
      log.warn("notification.queue_failed", { count: messages.length, error: err instanceof Error ? err.message : String(err) });
    }
  }
}

/**
 * Notifies a driver of an event by the channel they chose. Answers how many rows went to the
 * queue (0 when the occurrence was already notified, or nothing could be sent).
 */
export async function notifyDriver(
  env: Pick<Env, "DB" | "DISPATCH">,
  log: Logger,
  userId: number,
  event: NotificationEvent,
  content: NotificationContent,
  now = Date.now(),
): Promise<{ queued: number }> {
  const db = dbFor(env.DB);
  const [driver, choice, devices] = await db.batch([
    db
      .select({ language: users.language, optedOut: optedOutOfTexts(db) })
      .from(users)
      .where(and(eq(users.id, userId), isNull(users.erasedAt))),
    db
      .select({ channel: notificationChannels.channel })
      .from(notificationChannels)
      .where(and(eq(notificationChannels.userId, userId), eq(notificationChannels.event, event))),
    db.select({ id: pushSubscriptions.id }).from(pushSubscriptions).where(eq(pushSubscriptions.userId, userId)).orderBy(pushSubscriptions.id),
  ]);
  const user = driver[0];
  if (!user) return { queued: 0 };
  const channel = channelFor(choice[0]?.channel, devices.length > 0);
  const words = content.words(user.language);
  // The tag (the occurrence's digest): a second push about the same thing replaces the first on screen.
  const tag = await topicOf(event, content.key);
  const payload = JSON.stringify({ event, title: words.title, body: words.body, url: content.url, tag } satisfies PushPayload);
  const row = (fields: Pick<NewRow, "channel" | "key" | "body"> & Partial<NewRow>): NewRow => ({ userId, event, createdAt: now, updatedAt: now, ...fields });
  const rows: NewRow[] = [];
  // What a row says is kept only while it may still be sent: one skipped from the start keeps none.
  if (channel === "none") rows.push(row({ channel: "push", key: `${content.key}:none`, body: "", status: "skipped", error: "none_chosen" }));
  if (channel === "push" || channel === "both") {
    for (const device of devices) rows.push(row({ channel: "push", subscriptionId: device.id, key: `${content.key}:push:${device.id}`, body: payload }));
    if (devices.length === 0) rows.push(row({ channel: "push", key: `${content.key}:push`, body: "", status: "skipped", error: "no_device" }));
  }
  if (channel === "sms" || channel === "both") {
    rows.push(
      row({ channel: "sms", key: `${content.key}:sms`, ...(user.optedOut ? { body: "", status: "skipped", error: "opted_out" } : { body: words.sms }) }),
    );
  }
  const inserted = await db
    .insert(driverNotifications)
    .values(rows)
    .onConflictDoNothing({ target: driverNotifications.key })
    .returning({ id: driverNotifications.id, status: driverNotifications.status });
  const queued = inserted.filter((r) => r.status === "queued").map((r) => r.id);
  if (queued.length > 0) {
    await queueNotifications(env, queued, log);
    log.info("notification.accepted", { event, channel, queued: queued.length });
  }
  return { queued: queued.length };
}
