/**
 * What the service tells a driver outside the dashboard, and how (docs/notifications.md): the
 * events, the channels a driver may pick for each, and the payload a push message carries. Shared
 * by the Worker (which sends) and the SPA (the profile's notifications section, the service
 * worker that shows each push).
 */
import { z } from "zod";

/** A block won; searching stopped (connection lost, the platform limiting the account, a captcha or signature to deal with); service ending within 24 hours. */
export const NOTIFICATION_EVENTS = ["blockWon", "searchStopped", "serviceEnding"] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** Per event: push, SMS, both or none. No stored choice means the default (defaultChannel). */
export const NOTIFICATION_CHANNELS = ["push", "sms", "both", "none"] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

/** Push where the driver has a subscription on some device, SMS otherwise. */
export function defaultChannel(hasPushSubscription: boolean): NotificationChannel {
  return hasPushSubscription ? "push" : "sms";
}

/** The channel an event goes by: the driver's own choice, else the default. */
export function channelFor(chosen: NotificationChannel | null | undefined, hasPushSubscription: boolean): NotificationChannel {
  return chosen ?? defaultChannel(hasPushSubscription);
}

/** At most this many devices per driver get pushes; a new one past it replaces the least recently added. */
export const MAX_PUSH_SUBSCRIPTIONS = 5;

/** What the service worker reads from a push and shows: a click opens `url` (a path of ours). */
export const pushPayloadSchema = z.object({
  event: z.enum(NOTIFICATION_EVENTS),
  title: z.string().min(1).max(120),
  body: z.string().max(400),
  /** A path of the SPA, e.g. "/flex/dashboard": never another origin. */
  url: z.string().regex(/^\/(?!\/)/),
  /** The notification's tag: a second push about the same thing replaces the first on the device. */
  tag: z.string().min(1).max(64),
});
export type PushPayload = z.infer<typeof pushPayloadSchema>;

/** A browser's PushSubscription as PushSubscription.toJSON() gives it. */
export const pushSubscriptionSchema = z.object({
  endpoint: z.url({ protocol: /^https?$/ }).max(2048),
  keys: z.object({
    p256dh: z.string().regex(/^[A-Za-z0-9_-]{80,100}$/),
    auth: z.string().regex(/^[A-Za-z0-9_-]{16,32}$/),
  }),
});
export type PushSubscriptionJson = z.infer<typeof pushSubscriptionSchema>;
