/**
 * How each event travels (docs/notifications.md): how long a push service keeps it for an offline
 * device, how urgent it is, and the Topic that makes a retried push replace, not repeat, itself.
 */
import type { Language } from "../../shared/auth";
import type { NotificationEvent } from "../../shared/notifications";
import type { PushDelivery } from "./web-push";

/** What an event says and where a click goes; `words` gives the push's title and body and the SMS in the driver's language. */
export type NotificationContent = {
  /** The occurrence, once: e.g. `blockWon:<userId>:<offerId>`. Each row's key adds its channel and device. */
  key: string;
  /** The SPA's path a click opens. */
  url: string;
  words: (language: Language) => { title: string; body: string; sms: string };
};

const HOUR = 3600;

/** A block won matters for hours (it is a shift to drive); a stopped search and the service ending sooner lose their point. */
export const DELIVERY: Record<NotificationEvent, Omit<PushDelivery, "topic">> = {
  blockWon: { ttl: 4 * HOUR, urgency: "high" },
  searchStopped: { ttl: HOUR, urgency: "high" },
  serviceEnding: { ttl: 2 * HOUR, urgency: "normal" },
};

/** The Topic of a row: the event and a digest of its key, 32 url-safe characters at most (RFC 8030, 5.4). */
export async function topicOf(event: NotificationEvent, key: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)));
  const hex = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${event}-${hex}`.slice(0, 32);
}
