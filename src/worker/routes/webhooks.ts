import { eq } from "drizzle-orm";
import { type Context, Hono } from "hono";
import { normalizeUsPhone } from "../../shared/phone";
import { billingContext } from "../billing/context";
import { receiveStripeWebhook } from "../billing/stripe-webhook";
import { type Channel, recordOptIn, recordOptOut } from "../compliance/consent";
import { inboundIntent } from "../compliance/inbound-intent";
import type { AppEnv } from "../context";
import type { Db } from "../db/client";
import { users } from "../db/schema";
import { ApiError } from "../errors";
import { recordDeliveryStatus } from "../messaging/opt-outs";
import { secretsEqual, verifyMetaSignature, verifyTwilioSignature } from "../providers/webhook-signatures";
import { createWhatsAppProvider } from "../providers/whatsapp/provider";

const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (ch) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", '"': "&quot;" })[ch]!);
const twiml = (c: Context, message?: string) =>
  c.body(`<?xml version="1.0" encoding="UTF-8"?><Response>${message ? `<Message>${escapeXml(message)}</Message>` : ""}</Response>`, 200, {
    "Content-Type": "text/xml; charset=utf-8",
  });

/**
 * Twilio posts form-encoded and signs the URL plus the sorted parameters. The raw body is read
 * once, the signature checked, and only then is anything acted on; a bad or missing signature
 * answers 401/403 and writes nothing.
 */
async function verifiedTwilioForm(c: Context<AppEnv>): Promise<URLSearchParams> {
  const header = c.req.header("X-Twilio-Signature");
  if (!header) throw new ApiError("unauthorized", "Missing X-Twilio-Signature");
  const params = new URLSearchParams(await c.req.text());
  if (!(await verifyTwilioSignature(c.env.TWILIO_AUTH_TOKEN, c.req.url, params, header))) throw new ApiError("forbidden", "Invalid X-Twilio-Signature");
  return params;
}

/**
 * The replies to inbound requests, in the sender's language (docs/messaging-rules.md): one
 * confirmation per opt-out or opt-in that changed something, and HELP with the program name,
 * support hours and contact, and how to opt out.
 */
export function inboundReply(kind: "stop" | "start" | "help", language: "en" | "es", env: Pick<Env, "APP_ORIGIN">): string {
  const contact = `${env.APP_ORIGIN.replace(/\/$/, "")}/contact`;
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
 * Acts on an inbound message: an opt-out on every channel, an opt-in on this one, or HELP. Answers
 * the reply to send, or null (not a request, or nothing changed, e.g. a second STOP or a replay).
 */
async function handleInbound(db: Db, env: Env, from: string, body: string, messageId: string | null, via: Channel): Promise<string | null> {
  const intent = inboundIntent(body);
  if (!intent) return null;
  const account = intent.language ? null : await db.select({ language: users.language }).from(users).where(eq(users.phone, from)).get();
  const language = intent.language ?? account?.language ?? "en";
  if (intent.kind === "help") return inboundReply("help", language, env);
  const change = { phone: from, message: body, messageId, via, language: intent.language ?? account?.language ?? null, keyword: intent.keyword };
  const { changed } = intent.kind === "stop" ? await recordOptOut(db, change) : await recordOptIn(db, change);
  return changed ? inboundReply(intent.kind, language, env) : null;
}

/** Meta statuses and inbound messages, as much of the payload as we read. */
type MetaPayload = {
  entry?: {
    changes?: {
      value?: {
        statuses?: { id?: string; status?: string; errors?: { code?: number; title?: string; message?: string }[] }[];
        messages?: { id?: string; from?: string; type?: string; text?: { body?: string }; button?: { text?: string } }[];
      };
    }[];
  }[];
};

/** Provider callbacks: /api/webhooks/* — each verifies the provider's signature before reading anything. */
export const webhookRoutes = new Hono<AppEnv>()
  // Delivery receipts: a sent row becomes delivered, or failed with Twilio's ErrorCode (30003 unreachable, 30007 filtered …).
  .post("/twilio/status", async (c) => {
    const params = await verifiedTwilioForm(c);
    const sid = params.get("MessageSid") ?? params.get("SmsSid");
    const status = params.get("MessageStatus") ?? params.get("SmsStatus");
    if (!sid || !status) throw new ApiError("bad_request", "MessageSid and MessageStatus are required");
    if (status === "delivered" || status === "read") {
      await recordDeliveryStatus(c.env.DB, sid, "delivered", null, null);
    } else if (status === "failed" || status === "undelivered") {
      const code = params.get("ErrorCode") || status;
      await recordDeliveryStatus(c.env.DB, sid, "failed", code, params.get("ErrorMessage") || `Twilio reported the message ${status}`);
    }
    return c.body(null, 204);
  })
  // Inbound SMS: a request to stop (keywords or plain words, English or Spanish) opts out of every
  // channel, START opts back in, HELP gets the help text; the one reply goes back as TwiML. Twilio's
  // own opt-out auto-reply must be off (docs/messaging-rules.md), or people would get two.
  .post("/twilio/inbound", async (c) => {
    const params = await verifiedTwilioForm(c);
    const from = normalizeUsPhone(params.get("From") ?? "");
    if (!from) return twiml(c);
    const reply = await handleInbound(c.var.db, c.env, from, params.get("Body") ?? "", params.get("MessageSid") ?? params.get("SmsSid"), "sms");
    return twiml(c, reply ?? undefined);
  })
  // Meta's subscription handshake: echo the challenge only to someone who knows our verify token.
  .get("/whatsapp", async (c) => {
    const mode = c.req.query("hub.mode");
    const token = c.req.query("hub.verify_token") ?? "";
    const challenge = c.req.query("hub.challenge") ?? "";
    if (mode !== "subscribe" || !(await secretsEqual(token, c.env.WHATSAPP_VERIFY_TOKEN))) throw new ApiError("forbidden", "Verification failed");
    return c.text(challenge);
  })
  .post("/whatsapp", async (c) => {
    const header = c.req.header("X-Hub-Signature-256");
    if (!header) throw new ApiError("unauthorized", "Missing X-Hub-Signature-256");
    const body = await c.req.arrayBuffer();
    if (!(await verifyMetaSignature(c.env.WHATSAPP_APP_SECRET, body, header))) throw new ApiError("forbidden", "Invalid X-Hub-Signature-256");
    let payload: MetaPayload;
    try {
      payload = JSON.parse(new TextDecoder().decode(body)) as MetaPayload;
    } catch {
      throw new ApiError("bad_request", "Malformed request body");
    }
    const values = (payload.entry ?? []).flatMap((e) => e.changes ?? []).flatMap((ch) => (ch.value ? [ch.value] : []));
    for (const status of values.flatMap((v) => v.statuses ?? [])) {
      if (!status.id) continue;
      if (status.status === "delivered" || status.status === "read") await recordDeliveryStatus(c.env.DB, status.id, "delivered", null, null);
      else if (status.status === "failed") {
        const error = status.errors?.[0];
        await recordDeliveryStatus(
          c.env.DB,
          status.id,
          "failed",
          error?.code !== undefined ? String(error.code) : "failed",
          error?.message ?? error?.title ?? "WhatsApp reported the message failed",
        );
      }
    }
    for (const message of values.flatMap((v) => v.messages ?? [])) {
      const from = normalizeUsPhone(message.from ?? "");
      const body = message.text?.body ?? message.button?.text;
      if (!from || !body) continue;
      const reply = await handleInbound(c.var.db, c.env, from, body, message.id ?? null, "whatsapp");
      if (!reply) continue;
      // WhatsApp has no TwiML: the reply is a free-text message inside the 24-hour window the user just opened.
      const sent = await createWhatsAppProvider(c.env).sendText(from, reply);
      if (!sent.ok) c.var.log.warn("webhook.whatsapp_reply_failed", { errorCode: sent.errorCode });
    }
    // Meta retries anything but a 200 for days; once verified and read, the event is ours.
    return c.json({ received: true });
  })
  // Stripe (and the embedded provider's events): verified with the signing secret before anything is parsed.
  .post("/stripe", async (c) => {
    const outcome = await receiveStripeWebhook(billingContext(c), await c.req.text(), c.req.header("Stripe-Signature"));
    switch (outcome.result) {
      case "rejected":
        throw outcome.reason === "missing_signature"
          ? new ApiError("unauthorized", "Missing Stripe-Signature")
          : new ApiError("forbidden", "Invalid Stripe-Signature (wrong secret, altered body or older than 5 minutes)");
      case "in_flight":
        // Non-2xx makes Stripe deliver it again later, by when the first delivery has finished (or its claim has lapsed).
        throw new ApiError("conflict", "This event is being processed", { details: { eventId: outcome.eventId } });
      default:
        return c.json({ received: true, result: outcome.result });
    }
  });
