/**
 * The driver's notification settings (docs/notifications.md; the API in docs/api.md): the channel
 * per event, the devices that get pushes, and what the browser needs to subscribe (our VAPID public key).
 */
import { and, count, desc, eq, notInArray } from "drizzle-orm";
import {
  channelFor,
  MAX_PUSH_SUBSCRIPTIONS,
  NOTIFICATION_EVENTS,
  type NotificationChannel,
  type NotificationEvent,
  type PushSubscriptionJson,
} from "../../shared/notifications";
import { isLocalHost, isProduction } from "../config";
import type { Db } from "../db/client";
import { notificationChannels, pushSubscriptions, users } from "../db/schema";
import { ApiError } from "../errors";

type Channels = Record<NotificationEvent, NotificationChannel | null>;
export type NotificationSettings = {
  vapidPublicKey: string;
  devices: number;
  channels: Channels;
  effective: Record<NotificationEvent, NotificationChannel>;
  smsOptOut: boolean;
};

const devicesOf = async (db: Db, userId: number) =>
  (await db.select({ n: count() }).from(pushSubscriptions).where(eq(pushSubscriptions.userId, userId)).get())?.n ?? 0;

export async function notificationSettings(db: Db, env: Pick<Env, "VAPID_PUBLIC_KEY">, userId: number): Promise<NotificationSettings> {
  const [chosen, devices, user] = await db.batch([
    db
      .select({ event: notificationChannels.event, channel: notificationChannels.channel })
      .from(notificationChannels)
      .where(eq(notificationChannels.userId, userId)),
    db.select({ n: count() }).from(pushSubscriptions).where(eq(pushSubscriptions.userId, userId)),
    db.select({ smsOptOut: users.smsOptOut }).from(users).where(eq(users.id, userId)),
  ]);
  const hasDevice = (devices[0]?.n ?? 0) > 0;
  const channels = Object.fromEntries(NOTIFICATION_EVENTS.map((e) => [e, chosen.find((c) => c.event === e)?.channel ?? null])) as Channels;
  const effective = Object.fromEntries(NOTIFICATION_EVENTS.map((e) => [e, channelFor(channels[e], hasDevice)])) as NotificationSettings["effective"];
  return { vapidPublicKey: env.VAPID_PUBLIC_KEY, devices: devices[0]?.n ?? 0, channels, effective, smsOptOut: user[0]?.smsOptOut ?? false };
}

/** Sets (or with null clears) the driver's channel for each event named; the others stay. */
export async function setNotificationChannels(db: Db, env: Pick<Env, "VAPID_PUBLIC_KEY">, userId: number, changes: Partial<Channels>, now = Date.now()) {
  const entries = Object.entries(changes) as [NotificationEvent, NotificationChannel | null][];
  const statements = entries.map(([event, channel]) =>
    channel === null
      ? db.delete(notificationChannels).where(and(eq(notificationChannels.userId, userId), eq(notificationChannels.event, event)))
      : db
          .insert(notificationChannels)
          .values({ userId, event, channel, updatedAt: now })
          .onConflictDoUpdate({ target: [notificationChannels.userId, notificationChannels.event], set: { channel, updatedAt: now } }),
  );
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
  return notificationSettings(db, env, userId);
}

/** Production sends pushes only to https push services on public hosts (a subscription names where the Worker POSTs). */
function assertPushEndpoint(env: Pick<Env, "ENVIRONMENT">, endpoint: string) {
  if (!isProduction(env)) return;
  const url = new URL(endpoint);
  if (url.protocol !== "https:" || isLocalHost(url.hostname)) {
    throw new ApiError("validation_failed", "endpoint: must be an https URL of a push service", {
      details: [{ path: "endpoint", message: "must be an https URL of a push service" }],
    });
  }
}

/**
 * Stores this browser's subscription for the driver, by endpoint: one another account held (the
 * device signed in as someone else) moves to this one. Past MAX_PUSH_SUBSCRIPTIONS the driver's
 * oldest go.
 */
export async function savePushSubscription(db: Db, env: Pick<Env, "ENVIRONMENT">, userId: number, subscription: PushSubscriptionJson, now = Date.now()) {
  assertPushEndpoint(env, subscription.endpoint);
  const { endpoint, keys } = subscription;
  const newest = db
    .select({ id: pushSubscriptions.id })
    .from(pushSubscriptions)
    .where(eq(pushSubscriptions.userId, userId))
    .orderBy(desc(pushSubscriptions.createdAt), desc(pushSubscriptions.id))
    .limit(MAX_PUSH_SUBSCRIPTIONS);
  await db.batch([
    db
      .insert(pushSubscriptions)
      .values({ userId, endpoint, p256dh: keys.p256dh, auth: keys.auth, createdAt: now })
      .onConflictDoUpdate({ target: pushSubscriptions.endpoint, set: { userId, p256dh: keys.p256dh, auth: keys.auth, createdAt: now } }),
    db.delete(pushSubscriptions).where(and(eq(pushSubscriptions.userId, userId), notInArray(pushSubscriptions.id, newest))),
  ]);
  return { devices: await devicesOf(db, userId) };
}

/** Forgets one of the driver's devices by its endpoint (another account's is left alone; none is fine). */
export async function removePushSubscription(db: Db, userId: number, endpoint: string) {
  await db.delete(pushSubscriptions).where(and(eq(pushSubscriptions.userId, userId), eq(pushSubscriptions.endpoint, endpoint)));
  return { devices: await devicesOf(db, userId) };
}
