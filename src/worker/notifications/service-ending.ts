/**
 * The cron's "your service ends soon" (docs/notifications.md): drivers whose service ends within
 * 24 hours and who were not told for that expiry yet (the key names the expiry, so a payment that
 * moves it tells them again before the new one), a bounded batch per run. Administrators and
 * unconfirmed accounts are not told. The SMS is the reminder billing always sent.
 */
import { and, eq, gt, inArray, isNull, like, lte, notExists, sql } from "drizzle-orm";
import { APPS, type Language } from "../../shared/auth";
import { formatDDMMYY } from "../../shared/dates";
import { appUrl } from "../config";
import { dbFor } from "../db/client";
import { driverNotifications, users } from "../db/schema";
import type { Logger } from "../log";
import type { NotificationContent } from "./events";
import { notifyDriver } from "./notify";

/** Drivers told per run at most: the cron runs every minute. */
export const SERVICE_ENDING_BATCH = 50;
const WITHIN_MS = 24 * 3_600_000;
/** The plans page (src/app/routes.tsx). */
const PLANS_PATH = "/payment";

export function serviceEndingContent(origin: string, userId: number, expirationAt: number): NotificationContent {
  const link = appUrl({ APP_ORIGIN: origin }, PLANS_PATH);
  const date = formatDDMMYY(expirationAt);
  const words: Record<Language, { title: string; body: string; sms: string }> = {
    en: {
      title: "Your Blockpilot service ends soon",
      body: `It ends in 24 hours (${date}). Renew it to keep catching blocks.`,
      sms: `Blockpilot: your service ends in 24 hours (${date}). Renew at ${link} to keep catching blocks. Reply STOP to opt out.`,
    },
    es: {
      title: "Tu servicio de Blockpilot termina pronto",
      body: `Termina en 24 horas (${date}). Renuévalo para seguir atrapando bloques.`,
      sms: `Blockpilot: tu servicio termina en 24 horas (${date}). Renueva en ${link} para seguir atrapando bloques. Responde STOP para no recibir más.`,
    },
  };
  return { key: `serviceEnding:${userId}:${expirationAt}`, url: PLANS_PATH, words: (language) => words[language] };
}

/** Finds the drivers to tell and notifies each; answers how many were. */
export async function notifyServiceEnding(env: Pick<Env, "DB" | "DISPATCH" | "APP_ORIGIN">, log: Logger, now: number): Promise<number> {
  const db = dbFor(env.DB);
  const n = driverNotifications;
  const due = await db
    .select({ id: users.id, expirationAt: users.expirationAt })
    .from(users)
    .where(
      and(
        inArray(users.app, [...APPS]),
        gt(users.expirationAt, now),
        lte(users.expirationAt, now + WITHIN_MS),
        eq(users.isAdmin, false),
        eq(users.phoneVerified, true),
        isNull(users.erasedAt),
        notExists(
          db
            .select({ one: sql`1` })
            .from(n)
            .where(
              and(
                eq(n.userId, users.id),
                eq(n.event, "serviceEnding"),
                like(n.key, sql`'serviceEnding:' || ${users.id} || ':' || ${users.expirationAt} || ':%'`),
              ),
            ),
        ),
      ),
    )
    .orderBy(users.expirationAt)
    .limit(SERVICE_ENDING_BATCH);
  for (const driver of due) {
    await notifyDriver(env, log, driver.id, "serviceEnding", serviceEndingContent(env.APP_ORIGIN, driver.id, driver.expirationAt!), now);
  }
  if (due.length > 0) log.info("notification.service_ending", { drivers: due.length });
  return due.length;
}
