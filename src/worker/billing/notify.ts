import { and, eq, sql } from "drizzle-orm";
import { formatDDMMYY } from "../../shared/dates";
import type { Db } from "../db/client";
import { optOuts, users } from "../db/schema";
import { createSmsProvider } from "../providers/sms/provider";
import type { BillingContext } from "./context";

type Language = "en" | "es";

/** Billing's texts to drivers and invitees, in their language. Each ends with the opt-out line carriers expect. */
export const billingMessages = {
  invite: (lang: Language, inviter: string, link: string) =>
    lang === "es"
      ? `${inviter} te invitó a Blockpilot, el buscador de bloques para conductores. Regístrate: ${link} Responde STOP para no recibir más.`
      : `${inviter} invited you to Blockpilot, the block finder for delivery drivers. Sign up: ${link} Reply STOP to opt out.`,
  freeWeek: (lang: Language, expiration: number | null) =>
    lang === "es"
      ? `Blockpilot: un amigo que invitaste hizo su primer pago y ganaste una semana gratis. Tu servicio dura hasta el ${formatDDMMYY(expiration)}. Responde STOP para no recibir más.`
      : `Blockpilot: a friend you invited made their first payment, so you earned a free week. Your service now runs until ${formatDDMMYY(expiration)}. Reply STOP to opt out.`,
  expiryReminder: (lang: Language, expiration: number, paymentUrl: string) =>
    lang === "es"
      ? `Blockpilot: tu servicio termina en 24 horas (${formatDDMMYY(expiration)}). Renueva en ${paymentUrl} para seguir atrapando bloques. Responde STOP para no recibir más.`
      : `Blockpilot: your service ends in 24 hours (${formatDDMMYY(expiration)}). Renew at ${paymentUrl} to keep catching blocks. Reply STOP to opt out.`,
};

/** True when the number said STOP to SMS (with or without an account). */
export async function smsOptedOut(db: Db, phone: string): Promise<boolean> {
  const [row] = await db
    .select({ out: sql<number>`1` })
    .from(optOuts)
    .where(and(eq(optOuts.phone, phone), eq(optOuts.channel, "sms")))
    .union(
      db
        .select({ out: sql<number>`1` })
        .from(users)
        .where(and(eq(users.phone, phone), eq(users.smsOptOut, true))),
    )
    .limit(1);
  return row !== undefined;
}

/**
 * Texts a number unless it opted out. The opt-out is checked now; the send happens after the
 * answer, and a failure is only logged (these texts are courtesy, never a reason to fail the
 * payment or event that caused them).
 */
export async function sendCourtesySms(ctx: BillingContext, to: string, body: string, event: string): Promise<void> {
  if (await smsOptedOut(ctx.db, to)) {
    ctx.log.info(`${event}.skipped_opted_out`);
    return;
  }
  ctx.waitUntil(
    createSmsProvider(ctx.env)
      .send({ to, body })
      .then((outcome) => {
        if (outcome.ok) ctx.log.info(`${event}.sent`, { providerId: outcome.providerId });
        else ctx.log.warn(`${event}.failed`, { errorCode: outcome.errorCode, errorMessage: outcome.errorMessage });
      })
      .catch((err: unknown) => ctx.log.error(`${event}.failed`, { error: err instanceof Error ? err.message : String(err) })),
  );
}
