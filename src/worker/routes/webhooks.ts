import { type Context, Hono } from "hono";
import { normalizeUsPhone } from "../../shared/phone";
import { billingContext } from "../billing/run-context";
import { receiveStripeWebhook } from "../billing/stripe-webhook";
import { handleInbound } from "../compliance/inbound-requests";
import type { AppEnv } from "../context";
import { ApiError } from "../errors";
import { type MetaPayload, twilioStatusCallback, whatsAppEvents } from "../messaging/provider-callbacks";
import { TWILIO_CALLBACK_OVERRIDES } from "../providers/sms/twilio";
import { secretsEqual, verifyMetaSignature, verifyTwilioSignature } from "../providers/webhook-signatures";

const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (ch) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", '"': "&quot;" })[ch]!);
const twiml = (c: Context, message?: string) =>
  c.body(`<?xml version="1.0" encoding="UTF-8"?><Response>${message ? `<Message>${escapeXml(message)}</Message>` : ""}</Response>`, 200, {
    "Content-Type": "text/xml; charset=utf-8",
  });

/**
 * Twilio posts form-encoded and signs the URL plus the sorted parameters. The raw body is read
 * once, the signature checked, and only then is anything acted on; a bad or missing signature
 * answers 401/403 and writes nothing.
 *
 * `fragment`: the connection overrides our StatusCallback URLs carry (src/worker/providers/sms/twilio.ts).
 * Twilio signs "the exact URL your application supplied", which includes them, but a fragment is
 * never sent in an HTTP request (RFC 9110 § 7.1), so the URL we receive lacks it: the signature is
 * checked over the URL with that fragment put back, and also over the URL as received (should
 * Twilio sign the URL it requested instead). Both are our own constant; nothing else is accepted.
 */
async function verifiedTwilioForm(c: Context<AppEnv>, fragment?: string): Promise<URLSearchParams> {
  const header = c.req.header("X-Twilio-Signature");
  if (!header) throw new ApiError("unauthorized", "Missing X-Twilio-Signature");
  const params = new URLSearchParams(await c.req.text());
  const token = c.env.TWILIO_AUTH_TOKEN;
  const url = c.req.url.replace(/#.*$/, "");
  const valid =
    (fragment !== undefined && (await verifyTwilioSignature(token, `${url}${fragment}`, params, header))) ||
    (await verifyTwilioSignature(token, url, params, header));
  if (!valid) throw new ApiError("forbidden", "Invalid X-Twilio-Signature");
  return params;
}

/** Provider callbacks: /api/webhooks/* — each verifies the provider's signature before reading anything. */
export const webhookRoutes = new Hono<AppEnv>()
  // Status callbacks: a sent row becomes delivered, or failed with Twilio's ErrorCode (30003 unreachable, 30007 filtered …);
  // the `m` of the URL (ours, covered by the signature) names the ledger row, so a send whose answer was lost settles too.
  .post("/twilio/status", async (c) => {
    const params = await verifiedTwilioForm(c, TWILIO_CALLBACK_OVERRIDES);
    await twilioStatusCallback(c.env, params, new URL(c.req.url).searchParams.get("m"));
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
    await whatsAppEvents(c.var.db, c.env, c.var.log, payload);
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
