import { and, asc, eq } from "drizzle-orm";
import { Hono } from "hono";
import { requireAdmin, requireUser } from "../auth/middleware";
import type { AppEnv } from "../context";
import { users } from "../db/schema";
import { sendRate } from "../messaging/pacer";

/** The messaging console's settings: /api/admin/settings (docs/api.md). Administrators only. */
export const adminSettingsRoutes = new Hono<AppEnv>().use(requireUser, requireAdmin).get("/", async (c) => {
  // The "only {name} can uncheck this" label names the owner admin; OWNER_NAME covers a database without one.
  const owner = await c.var.db
    .select({ name: users.name })
    .from(users)
    .where(and(eq(users.isAdmin, true), eq(users.roleName, "owner")))
    .orderBy(asc(users.id))
    .get();
  return c.json({
    ownerName: owner?.name ?? c.env.OWNER_NAME,
    smsProvider: c.env.SMS_PROVIDER,
    whatsappProvider: c.env.WHATSAPP_PROVIDER,
    sendRatePerSecond: sendRate(c.env),
  });
});
