import type { PushSubscriptionJson } from "../../shared/notifications";
import { registerServiceWorker } from "./service-worker";

/**
 * This browser's Web Push subscription: whether the browser can have one, asking its permission
 * (only ever from a click), subscribing with the server's VAPID key, and ending it. The profile's
 * notifications section sends what it gets to PUT /api/driver/push-subscription; sign-out and
 * account deletion end it in the browser, so the next person on this device gets none of ours.
 */

/** How long to wait for the service worker to be active before taking the browser as unable to push. */
const READY_TIMEOUT_MS = 5000;
/** How long sign-out waits to learn this browser's subscription: a browser that hangs must not keep anyone signed in. */
const LOOKUP_TIMEOUT_MS = 1000;

/** `promise`, or `fallback` if it has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The SPA's service worker registration once it is active, or null where there is none to be had
 * (no service workers, none served as under `npm run dev`, or none active within 5 s). Registers it
 * if this page has not yet (service-worker.ts registers once, on the driver's pages).
 */
async function activeRegistration(): Promise<ServiceWorkerRegistration | null> {
  registerServiceWorker();
  if (typeof navigator === "undefined" || !navigator.serviceWorker) return null;
  return within<ServiceWorkerRegistration | null>(navigator.serviceWorker.ready, READY_TIMEOUT_MS, null);
}

/** Whether this browser has what Web Push needs: service workers, the Push API and notifications (iOS Safari only in an installed app). */
function pushSupported(): boolean {
  return (
    typeof navigator !== "undefined" && "serviceWorker" in navigator && typeof window !== "undefined" && "PushManager" in window && "Notification" in window
  );
}

/** The notifications permission as it stands (never asks), or "unsupported". */
function pushPermission(): NotificationPermission | "unsupported" {
  return pushSupported() ? Notification.permission : "unsupported";
}

/** Why turning push on did not happen: no support, the permission refused (now or before), the browser's question closed unanswered, anything else. */
type PushSetupFailure = "unsupported" | "denied" | "dismissed" | "failed";

export class PushSetupError extends Error {
  constructor(
    readonly reason: PushSetupFailure,
    options?: { cause?: unknown },
  ) {
    super(`Push notifications could not be turned on: ${reason}`, options);
    this.name = "PushSetupError";
  }
}

/** A base64url string (padded or not) as bytes: the VAPID public key as PushManager.subscribe takes it. */
function base64UrlToBytes(value: string): Uint8Array<ArrayBuffer> {
  const base64 = value.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  const binary = atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, "="));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function sameBytes(a: ArrayBuffer | null | undefined, b: Uint8Array): boolean {
  if (!a || a.byteLength !== b.byteLength) return false;
  const view = new Uint8Array(a);
  return view.every((byte, i) => byte === b[i]);
}

/** Whether `subscription` was made with this VAPID key (a subscription made with another is of no use to the server). */
function subscribedWithKey(subscription: PushSubscription, vapidPublicKey: string): boolean {
  return sameBytes(subscription.options?.applicationServerKey, base64UrlToBytes(vapidPublicKey));
}

/** What the server stores of a subscription (PushSubscription.toJSON()'s endpoint and keys). */
export function subscriptionJson(subscription: PushSubscription): PushSubscriptionJson {
  const { endpoint, keys } = subscription.toJSON();
  return { endpoint: endpoint ?? subscription.endpoint, keys: { p256dh: keys?.p256dh ?? "", auth: keys?.auth ?? "" } };
}

/**
 * Where this device stands: no Web Push, the permission refused, no service worker to be had (it
 * failed, or none came within 5 s), no usable subscription, or subscribed with the server's key.
 */
export type PushDevice = { status: "unsupported" | "denied" | "unavailable" | "off" } | { status: "on"; subscription: PushSubscription };

/**
 * This device's state, waiting for the service worker (never asks anything). A subscription made
 * with another VAPID key, or left over after the permission was reset, counts as none: turning push
 * on replaces it.
 */
export async function pushDevice(vapidPublicKey: string): Promise<PushDevice> {
  const permission = pushPermission();
  if (permission === "unsupported") return { status: "unsupported" };
  if (permission === "denied") return { status: "denied" };
  const registration = await activeRegistration();
  if (!registration?.pushManager) return { status: "unavailable" };
  const subscription = await registration.pushManager.getSubscription();
  if (!subscription || permission !== "granted" || !subscribedWithKey(subscription, vapidPublicKey)) return { status: "off" };
  return { status: "on", subscription };
}

/**
 * Asks the browser's permission (call it from a click: browsers refuse a question nobody asked
 * for, and ask once) and subscribes with the server's VAPID key. A subscription this browser
 * already has with that key is reused; one made with another key is ended first (subscribing
 * again with a new key fails while it lives). Throws PushSetupError.
 */
export async function subscribeToPush(vapidPublicKey: string): Promise<PushSubscription> {
  if (!pushSupported()) throw new PushSetupError("unsupported");
  let permission: NotificationPermission;
  try {
    permission = await Notification.requestPermission();
  } catch (err) {
    throw new PushSetupError("failed", { cause: err });
  }
  if (permission === "denied") throw new PushSetupError("denied");
  if (permission !== "granted") throw new PushSetupError("dismissed");
  const registration = await activeRegistration();
  if (!registration?.pushManager) throw new PushSetupError("failed");
  try {
    const existing = await registration.pushManager.getSubscription();
    if (existing && subscribedWithKey(existing, vapidPublicKey)) return existing;
    if (existing) await existing.unsubscribe();
    return await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64UrlToBytes(vapidPublicKey) });
  } catch (err) {
    // The permission refused after all (a browser that asks again at subscribe), or the push service unreachable.
    throw new PushSetupError(Notification.permission === "denied" ? "denied" : "failed", { cause: err });
  }
}

/**
 * The subscription of a registration that already exists, without waiting for one: sign-out and
 * account deletion must not wait 5 s on a page where no service worker was ever registered (the
 * console), and a browser with no registration has no subscription to end.
 */
async function existingPushSubscription(): Promise<PushSubscription | null> {
  if (!pushSupported()) return null;
  const lookup = async () => {
    const registration = await navigator.serviceWorker.getRegistration();
    return (await registration?.pushManager?.getSubscription()) ?? null;
  };
  return within(
    lookup().catch(() => null),
    LOOKUP_TIMEOUT_MS,
    null,
  );
}

/** This browser's subscription endpoint, if it has one (what sign-out sends as `pushEndpoint`). */
export async function existingPushEndpoint(): Promise<string | null> {
  return (await existingPushSubscription())?.endpoint ?? null;
}

/** Ends this browser's subscription, if it has one; false when there was none. A failure is logged, never thrown: it runs on the way out. */
export async function endPushSubscription(): Promise<boolean> {
  const subscription = await existingPushSubscription();
  if (!subscription) return false;
  try {
    return await subscription.unsubscribe();
  } catch (err) {
    console.error("Could not end this browser's push subscription", err);
    return false;
  }
}
