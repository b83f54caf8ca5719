import { type Context, Hono } from "hono";
import { normalizeUsPhone } from "../../shared/phone";
import { billingContext } from "../billing/context";
import { receiveStripeWebhook } from "../billing/stripe-webhook";
import type { AppEnv } from "../context";
import { ApiError } from "../errors";
import { helpReply, inboundKeyword, optIn, optOut, recordDeliveryStatus } from "../messaging/opt-outs";
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

/** Meta statuses and inbound messages, as much of the payload as we read. */
type MetaPayload = {
  entry?: {
    changes?: {
      value?: {
        statuses?: { id?: string; status?: string; errors?: { code?: number; title?: string; message?: string }[] }[];
        messages?: { from?: string; type?: string; text?: { body?: string }; button?: { text?: string } }[];
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
  // Inbound SMS: STOP-like keywords opt out, START/UNSTOP opt back in, HELP gets the help text as TwiML.
  .post("/twilio/inbound", async (c) => {
    const params = await verifiedTwilioForm(c);
    const from = normalizeUsPhone(params.get("From") ?? "");
    const keyword = inboundKeyword(params.get("Body"));
    if (!from || !keyword) return twiml(c);
    if (keyword.kind === "stop") await optOut(c.env.DB, from, "sms", keyword.word);
    else if (keyword.kind === "start") await optIn(c.env.DB, from, "sms");
    else return twiml(c, helpReply(c.env));
    c.var.log.info("webhook.sms_keyword", { keyword: keyword.word });
    // Twilio answers STOP and START itself (Advanced Opt-Out); a second reply from us would be noise.
    return twiml(c);
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
      const keyword = inboundKeyword(message.text?.body ?? message.button?.text);
      if (!from || !keyword) continue;
      if (keyword.kind === "stop") await optOut(c.env.DB, from, "whatsapp", keyword.word);
      else if (keyword.kind === "start") await optIn(c.env.DB, from, "whatsapp");
      else {
        // WhatsApp has no TwiML: the reply is a free-text message inside the 24-hour window the user just opened.
        const sent = await createWhatsAppProvider(c.env).sendText(from, helpReply(c.env));
        if (!sent.ok) c.var.log.warn("webhook.whatsapp_help_failed", { errorCode: sent.errorCode });
      }
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
