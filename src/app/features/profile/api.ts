import type { ClientResponse, InferRequestType } from "hono/client";
import type { NotificationChannel, NotificationEvent, PushSubscriptionJson } from "../../../shared/notifications";
import { api, unwrap } from "../../lib/api-client";

/** GET and PUT /api/driver/notifications answer this (the Worker's notifications routes, src/shared/notifications.ts). */
export type NotificationSettings = {
  /** base64url, the uncompressed P-256 point PushManager.subscribe takes as applicationServerKey. */
  vapidPublicKey: string;
  /** The driver's devices that get pushes. */
  devices: number;
  /** The driver's choice per event; null is no choice (the default). */
  channels: Record<NotificationEvent, NotificationChannel | null>;
  /** What each event goes by now: the choice, else the default. */
  effective: Record<NotificationEvent, NotificationChannel>;
  /** The driver replied STOP: no text goes to them, whatever they choose. */
  smsOptOut: boolean;
};
export type NotificationChoices = Partial<Record<NotificationEvent, NotificationChannel | null>>;

/**
 * The notifications routes as the Worker's contract gives them, for a tree where they are not yet
 * in AppType: once they are, the Worker's own types are used (and a mismatch is a type error here).
 */
type NotificationRoutes = {
  notifications: {
    $get: () => Promise<ClientResponse<NotificationSettings, 200, "json">>;
    $put: (args: { json: { channels: NotificationChoices } }) => Promise<ClientResponse<NotificationSettings, 200, "json">>;
  };
  "push-subscription": {
    $put: (args: { json: PushSubscriptionJson }) => Promise<ClientResponse<{ devices: number }, 200, "json">>;
    $delete: (args: { json: { endpoint: string } }) => Promise<ClientResponse<{ devices: number }, 200, "json">>;
  };
};
type DriverClient = typeof api.driver;
const driver = api.driver as "notifications" extends keyof DriverClient ? DriverClient : DriverClient & NotificationRoutes;

/** Signed-in identity calls; errors are thrown for the screens to word. */
export const profileApi = {
  update: (body: InferRequestType<typeof api.auth.me.$patch>["json"]) => unwrap(api.auth.me.$patch({ json: body })),
  /** The delivery-platform connection (its summary; tokens never reach the browser), and ending it. */
  connection: () => unwrap(api.driver.connection.$get()),
  disconnect: () => unwrap(api.driver.connection.$delete()),
  changePassword: (body: { currentPassword: string; newPassword: string }) => unwrap(api.auth["change-password"].$post({ json: body })),
  /** Everything we hold about the account, as the JSON document the download saves. */
  exportData: () => unwrap(api.account.export.$get()),
  /** Which proof deletion asks for: the password, or a code texted now. */
  startDelete: () => unwrap(api.account.delete.start.$post()),
  deleteAccount: (body: InferRequestType<typeof api.account.delete.$post>["json"]) => unwrap(api.account.delete.$post({ json: body })),
  /** How each event reaches the driver, the VAPID key and how many devices get pushes. */
  notifications: (): Promise<NotificationSettings> => unwrap(driver.notifications.$get()),
  /** Stores the choices given (null clears one); answers as the read does. */
  saveNotifications: (channels: NotificationChoices): Promise<NotificationSettings> => unwrap(driver.notifications.$put({ json: { channels } })),
  /** This device's subscription, stored for the driver (moved from whoever had it); answers the driver's device count. */
  savePushSubscription: (subscription: PushSubscriptionJson): Promise<{ devices: number }> => unwrap(driver["push-subscription"].$put({ json: subscription })),
  removePushSubscription: (endpoint: string): Promise<{ devices: number }> => unwrap(driver["push-subscription"].$delete({ json: { endpoint } })),
};
