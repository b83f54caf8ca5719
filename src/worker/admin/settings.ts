import { and, asc, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { users } from "../db/schema";
import { sendRate } from "../messaging/pacer";

/**
 * The messaging console's settings (docs/api.md): read from the environment, but for the owner's
 * name, which the "only {name} can uncheck this" label shows: the owner admin's, or OWNER_NAME for
 * a database without one. Nothing here is stored: there is no settings table.
 */
export async function consoleSettings(db: Db, env: Pick<Env, "OWNER_NAME" | "SMS_PROVIDER" | "WHATSAPP_PROVIDER" | "SEND_RATE_PER_SECOND">) {
  const owner = await db
    .select({ name: users.name })
    .from(users)
    .where(and(eq(users.isAdmin, true), eq(users.roleName, "owner")))
    .orderBy(asc(users.id))
    .get();
  return {
    ownerName: owner?.name ?? env.OWNER_NAME,
    smsProvider: env.SMS_PROVIDER,
    whatsappProvider: env.WHATSAPP_PROVIDER,
    sendRatePerSecond: sendRate(env),
  };
}
