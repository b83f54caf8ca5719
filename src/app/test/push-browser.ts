/**
 * A browser's Web Push for the app tests (happy-dom has none): a service worker registration whose
 * PushManager subscribes and unsubscribes in memory, and the Notification permission with the
 * answer the browser's question will give. `install()` puts it on the window; vi.unstubAllGlobals()
 * and `uninstall()` take it away.
 */
import { vi } from "vitest";

/** A VAPID public key as the API gives it: base64url of an uncompressed P-256 point (65 bytes). */
export const VAPID_KEY = bytesToBase64Url(Uint8Array.from({ length: 65 }, (_, i) => (i === 0 ? 4 : i)));
export const ENDPOINT = "https://push.example.test/send/device-1";
export const KEYS = { p256dh: `B${"q".repeat(86)}`, auth: "a".repeat(22) };

export function bytesToBase64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/=+$/, "")
    .replace(/\+/g, "-")
    .replace(/\//g, "_");
}

type FakeSubscription = PushSubscription & { unsubscribe: ReturnType<typeof vi.fn> };

function subscription(key: Uint8Array, onEnd: () => void): FakeSubscription {
  const sub = {
    endpoint: ENDPOINT,
    expirationTime: null,
    options: { userVisibleOnly: true, applicationServerKey: key.slice().buffer },
    toJSON: () => ({ endpoint: ENDPOINT, expirationTime: null, keys: KEYS }),
    unsubscribe: vi.fn(async () => {
      onEnd();
      return true;
    }),
    getKey: () => null,
  };
  return sub as unknown as FakeSubscription;
}

export type PushBrowser = {
  /** The subscription the browser has now, if any. */
  current: () => FakeSubscription | null;
  subscribe: ReturnType<typeof vi.fn>;
  requestPermission: ReturnType<typeof vi.fn>;
};

/**
 * Installs the fake: `permission` as it stands, `answer` what the browser's question gives,
 * `subscribed` a subscription already made with VAPID_KEY.
 */
export function installPushBrowser({
  permission = "default",
  answer = "granted",
  subscribed = false,
  serviceWorker = true,
}: {
  permission?: NotificationPermission;
  answer?: NotificationPermission;
  subscribed?: boolean;
  /** false: the service worker's registration is not to be had (it failed to register). */
  serviceWorker?: boolean;
} = {}): PushBrowser {
  let current: FakeSubscription | null = null;
  const end = () => {
    current = null;
  };
  if (subscribed) current = subscription(base64UrlBytes(VAPID_KEY), end);
  const subscribe = vi.fn(async (options: PushSubscriptionOptionsInit) => {
    current = subscription(new Uint8Array(options.applicationServerKey as Uint8Array), end);
    return current;
  });
  const registration = { pushManager: { getSubscription: vi.fn(async () => current), subscribe } };
  const notification = { permission };
  const requestPermission = vi.fn(async () => {
    notification.permission = answer;
    return answer;
  });
  vi.stubGlobal("Notification", Object.assign(notification, { requestPermission }));
  vi.stubGlobal("PushManager", class {});
  // register() answers a registration that never updates; what the page uses is what `ready` gives.
  const registered = { addEventListener: () => {}, update: async () => {} };
  Object.defineProperty(navigator, "serviceWorker", {
    configurable: true,
    value: serviceWorker
      ? { ready: Promise.resolve(registration), getRegistration: async () => registration, register: async () => registered }
      : { ready: Promise.resolve({ pushManager: undefined }), getRegistration: async () => undefined, register: async () => registered },
  });
  return { current: () => current, subscribe, requestPermission };
}

/** Takes the fake's service worker container off `navigator` (vi.unstubAllGlobals() takes the rest). */
export function uninstallPushBrowser() {
  Reflect.deleteProperty(navigator, "serviceWorker");
}

function base64UrlBytes(value: string): Uint8Array {
  const binary = atob(value.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}
