import { normalizeUsPhone } from "../../shared/phone";
import { handleInbound } from "../compliance/inbound-requests";
import type { Db } from "../db/client";
import { ApiError } from "../errors";
import type { Logger } from "../log";
import { createWhatsAppProvider } from "../providers/whatsapp/provider";
import { applyStatusCallback, type CallbackStatus, messageIdOfReference } from "./receipts";

/**
 * What the providers' verified callbacks say, read and acted on (the routes verify the signatures,
 * routes/webhooks.ts): Twilio's status callbacks, and Meta's statuses and inbound messages.
 */

/** Meta statuses and inbound messages, as much of the payload as we read. */
export type MetaPayload = {
  entry?: {
    changes?: {
      value?: {
        metadata?: { phone_number_id?: string };
        statuses?: {
          id?: string;
          status?: string;
          biz_opaque_callback_data?: string;
          errors?: { code?: number; title?: string; message?: string }[];
        }[];
        messages?: { id?: string; from?: string; timestamp?: string; type?: string; text?: { body?: string }; button?: { text?: string } }[];
      };
    }[];
  }[];
};

/** Twilio's MessageStatus: accepted/queued/sending/sent prove the provider has the message; delivered/read and failed/undelivered end it. */
function twilioStatus(status: string): CallbackStatus | null {
  if (status === "delivered" || status === "read") return "delivered";
  if (status === "failed" || status === "undelivered") return "failed";
  if (status === "accepted" || status === "queued" || status === "sending" || status === "sent") return "accepted";
  return null;
}

function metaStatus(status: string | undefined): CallbackStatus | null {
  if (status === "delivered" || status === "read") return "delivered";
  if (status === "failed") return "failed";
  if (status === "sent") return "accepted";
  return null;
}

/**
 * A Twilio status callback: a sent row becomes delivered, or failed with Twilio's ErrorCode (30003
 * unreachable, 30007 filtered …); `tag` (the `m` of our StatusCallback URL, covered by the
 * signature) names the ledger row, so a send whose answer was lost settles too.
 */
export async function twilioStatusCallback(env: Env, params: URLSearchParams, tag: string | null): Promise<void> {
  const sid = params.get("MessageSid") ?? params.get("SmsSid");
  const raw = params.get("MessageStatus") ?? params.get("SmsStatus");
  if (!sid || !raw) throw new ApiError("bad_request", "MessageSid and MessageStatus are required");
  const status = twilioStatus(raw);
  if (!status) return;
  await applyStatusCallback(env, {
    messageId: tag && /^\d{1,15}$/.test(tag) ? Number(tag) : null,
    providerId: sid,
    status,
    errorCode: status === "failed" ? params.get("ErrorCode") || raw : null,
    errorMessage: status === "failed" ? params.get("ErrorMessage") || `Twilio reported the message ${raw}` : null,
  });
}

/**
 * A Meta webhook's events about our business number: statuses settle ledger rows; inbound
 * messages are requests to stop, start or get help, answered with a free-text message inside the
 * 24-hour window the person just opened (WhatsApp has no TwiML).
 */
export async function whatsAppEvents(db: Db, env: Env, log: Logger, payload: MetaPayload): Promise<void> {
  const all = (payload.entry ?? []).flatMap((e) => e.changes ?? []).flatMap((ch) => (ch.value ? [ch.value] : []));
  // One app can serve several business numbers: only events about ours are ours to act on.
  const values = all.filter((v) => v.metadata?.phone_number_id === env.WHATSAPP_PHONE_NUMBER_ID);
  if (values.length < all.length) log.warn("webhook.whatsapp_other_number", { ignored: all.length - values.length });
  for (const event of values.flatMap((v) => v.statuses ?? [])) {
    const status = metaStatus(event.status);
    if (!event.id || !status) continue;
    const error = event.errors?.[0];
    await applyStatusCallback(env, {
      messageId: messageIdOfReference(event.biz_opaque_callback_data),
      providerId: event.id,
      status,
      errorCode: status === "failed" ? (error?.code !== undefined ? String(error.code) : "failed") : null,
      errorMessage: status === "failed" ? (error?.message ?? error?.title ?? "WhatsApp reported the message failed") : null,
    });
  }
  for (const message of values.flatMap((v) => v.messages ?? [])) {
    const from = normalizeUsPhone(message.from ?? "");
    const body = message.text?.body ?? message.button?.text;
    if (!from || !body) continue;
    // Meta says when the person sent it: a START older than an opt-out already recorded does not undo it.
    const sentAt = Number(message.timestamp) * 1000;
    const at = Number.isFinite(sentAt) && sentAt > 0 ? Math.min(sentAt, Date.now()) : Date.now();
    const reply = await handleInbound(db, env, from, body, message.id ?? null, "whatsapp", at);
    if (!reply) continue;
    const sent = await createWhatsAppProvider(env).sendText(from, reply);
    if (!sent.ok) log.warn("webhook.whatsapp_reply_failed", { errorCode: sent.errorCode });
  }
}
