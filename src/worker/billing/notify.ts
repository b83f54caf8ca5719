import { and, eq, sql } from "drizzle-orm";
import { formatDDMMYY } from "../../shared/dates";
import { smsEncoding } from "../../shared/sms";
import { RateLimited } from "../auth/rate-limit";
import { chargeRequestedText } from "../auth/sms-budget";
import { loadConfig } from "../config";
import type { Db } from "../db/client";
import { optOuts, users } from "../db/schema";
import { createSmsProvider } from "../providers/sms/provider";
import type { BillingContext } from "./context";

type Language = "en" | "es";

/** The longest first name an invitation carries (billing/notify.test.ts keeps the text one GSM-7 segment with it). */
export const INVITER_FIRST_NAME_MAX = 20;
/** Letters, with single hyphens or apostrophes between them (Mary-Jane, O'Brien): no digits, no links, no emoji. */
const FIRST_NAME = /^\p{L}+(?:['-]\p{L}+)*$/u;

/**
 * The inviter's first name as an invitation may carry it: the first word of their name, with
 * accents GSM-7 lacks taken off (María → Maria; é, ñ and ü stay), if it is letters only and at most
 * INVITER_FIRST_NAME_MAX long; otherwise null, and the invitation names no one. Anything longer or
 * stranger (a link, digits, emoji) would put someone else's words on our number.
 */
export function inviterFirstName(name: string): string | null {
  const first = (name.trim().split(/\s+/)[0] ?? "").normalize("NFC").replace(/\u2019/g, "'");
  const gsm = Array.from(first, (ch) => (smsEncoding(ch) === "GSM_7BIT" ? ch : ch.normalize("NFD").replace(/\p{M}/gu, ""))).join("");
  if (gsm.length === 0 || gsm.length > INVITER_FIRST_NAME_MAX || !FIRST_NAME.test(gsm) || smsEncoding(gsm) !== "GSM_7BIT") return null;
  return gsm;
}

/** Billing's texts to drivers and invitees, in their language. Each ends with the opt-out line carriers expect. */
export const billingMessages = {
  /** Fixed words, GSM-7 only (no á, í, ó, ú), one segment with the longest first name and APP_ORIGIN. */
  invite: (lang: Language, firstName: string | null, link: string) =>
    lang === "es"
      ? `Blockpilot: ${firstName ?? "un amigo"} te invita a buscar bloques de reparto: ${link} Responde STOP para cancelar.`
      : `Blockpilot: ${firstName ?? "a friend"} invites you to find delivery blocks with us: ${link} Reply STOP to opt out.`,
  freeWeek: (lang: Language, expiration: number | null) =>
    lang === "es"
      ? `Blockpilot: un amigo que invitaste hizo su primer pago y ganaste una semana gratis. Tu servicio dura hasta el ${formatDDMMYY(expiration)}. Responde STOP para no recibir más.`
      : `Blockpilot: a friend you invited made their first payment, so you earned a free week. Your service now runs until ${formatDDMMYY(expiration)}. Reply STOP to opt out.`,
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
 * Texts a number unless it opted out or the hourly budget of requested texts is spent
 * (`chargeRequestedText`: another driver's payment caused it, so it counts like any text sent on
 * someone's request). The opt-out and the budget are checked now; the send happens after the
 * answer, and a failure is only logged (these texts are courtesy, never a reason to fail the
 * payment or event that caused them).
 */
export async function sendCourtesySms(ctx: BillingContext, to: string, body: string, event: string): Promise<void> {
  if (await smsOptedOut(ctx.db, to)) {
    ctx.log.info(`${event}.skipped_opted_out`);
    return;
  }
  const loaded = loadConfig(ctx.env);
  if (!loaded.ok) throw new Error("The configuration is invalid (config.invalid)");
  try {
    await chargeRequestedText({ db: ctx.db, config: loaded.config, log: ctx.log, now: Date.now() }, { purpose: event, texted: true, mayUseReserve: false });
  } catch (err) {
    if (!(err instanceof RateLimited)) throw err;
    ctx.log.warn(`${event}.skipped_budget`);
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
