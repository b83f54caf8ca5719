import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { users } from "../db/schema";
import { type Channel, confirmConsentByReply, recordOptIn, recordOptOut } from "./consent";
import { restoreErasedOptOuts } from "./erased-opt-outs";
import { inboundIntent } from "./inbound-intent";

/**
 * The replies to inbound requests, in the sender's language (docs/messaging-rules.md): one
 * confirmation per opt-out or opt-in that changed something, and HELP with the program name,
 * support hours and contact, and how to opt out.
 */
function inboundReply(kind: "stop" | "start" | "help" | "consent_confirmed", language: "en" | "es", env: Pick<Env, "APP_ORIGIN">): string {
  const contact = `${env.APP_ORIGIN.replace(/\/$/, "")}/contact`;
  if (kind === "consent_confirmed") {
    return language === "es"
      ? "Blockpilot: gracias, recibirás nuestras ofertas. Responde STOP para no recibir más."
      : "Blockpilot: thanks, you will get our offers. Reply STOP to opt out.";
  }
  if (language === "es") {
    if (kind === "stop") return "Blockpilot: no recibirás más mensajes por SMS ni WhatsApp. Responde START para volver a recibirlos.";
    if (kind === "start") return "Blockpilot: volverás a recibir nuestros mensajes. Responde STOP para no recibir más.";
    return `Blockpilot (alertas de bloques para conductores): ayuda en ${contact}, de 7 am a 10 pm EST. Pueden aplicarse tarifas de mensajes y datos. Responde STOP para no recibir más.`;
  }
  if (kind === "stop") return "Blockpilot: you will get no more texts or WhatsApp messages from us. Reply START to receive them again.";
  if (kind === "start") return "Blockpilot: you will receive our messages again. Reply STOP to opt out.";
  return `Blockpilot (block alerts for delivery drivers): help at ${contact}, 7 am to 10 pm EST. Msg & data rates may apply. Reply STOP to opt out.`;
}

/**
 * Acts on an inbound message: an opt-out on every channel, an opt-in on this one (which also
 * confirms a marketing tick the number was asked about by SMS), or HELP. Answers
 * the reply to send, or null (not a request, or nothing changed, e.g. a second STOP or a replay).
 */
export async function handleInbound(
  db: Db,
  env: Env,
  from: string,
  body: string,
  messageId: string | null,
  via: Channel,
  at: number = Date.now(),
): Promise<string | null> {
  const intent = inboundIntent(body);
  if (!intent) return null;
  const account = intent.language ? null : await db.select({ language: users.language }).from(users).where(eq(users.phone, from)).get();
  const language = intent.language ?? account?.language ?? "en";
  if (intent.kind === "help") return inboundReply("help", language, env);
  const change = { phone: from, message: body, messageId, via, language: intent.language ?? account?.language ?? null, keyword: intent.keyword, at };
  // An opt-out kept only as a keyed hash (an erased account's) becomes a plain one first, so a START undoes it like any other.
  await restoreErasedOptOuts(db, env.PASSWORD_PEPPER, [from]);
  const { changed } = intent.kind === "stop" ? await recordOptOut(db, change) : await recordOptIn(db, change);
  // A YES (or START) to the text that asked this number to confirm a marketing tick confirms it.
  if (intent.kind === "start" && via === "sms") {
    const confirmedIn = await confirmConsentByReply(db, { phone: from, messageId, at });
    if (confirmedIn) return inboundReply("consent_confirmed", intent.language ?? confirmedIn, env);
  }
  return changed ? inboundReply(intent.kind, language, env) : null;
}
