import { Hono } from "hono";
import { z } from "zod";
import { NOTIFICATION_CHANNELS, NOTIFICATION_EVENTS, pushSubscriptionSchema } from "../../shared/notifications";
import type { AppEnv } from "../context";
import { notificationSettings, removePushSubscription, savePushSubscription, setNotificationChannels } from "../notifications/settings";
import { validate } from "../validate";

const channelsBody = z.object({ channels: z.partialRecord(z.enum(NOTIFICATION_EVENTS), z.enum(NOTIFICATION_CHANNELS).nullable()) });
const endpointBody = z.object({ endpoint: z.string().min(1).max(2048) });

/**
 * The driver's notifications (docs/notifications.md): the channel per event, and this browser's
 * push subscription. Mounted in driverRoutes (routes/driver.ts), behind its requireUser and
 * requireVerified: every call acts on the caller's own rows.
 */
export const driverNotificationRoutes = new Hono<AppEnv>()
  .get("/notifications", async (c) => c.json(await notificationSettings(c.var.db, c.env, c.var.user.id)))
  .put("/notifications", validate("json", channelsBody), async (c) =>
    c.json(await setNotificationChannels(c.var.db, c.env, c.var.user.id, c.req.valid("json").channels)),
  )
  .put("/push-subscription", validate("json", pushSubscriptionSchema), async (c) =>
    c.json(await savePushSubscription(c.var.db, c.env, c.var.user.id, c.req.valid("json"))),
  )
  .delete("/push-subscription", validate("json", endpointBody), async (c) =>
    c.json(await removePushSubscription(c.var.db, c.var.user.id, c.req.valid("json").endpoint)),
  );
