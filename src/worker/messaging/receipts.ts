import { dbFor } from "../db/client";
import { recordDeliveryStatus, settleFromCallback } from "./message-receipts";

/** What a provider's status callback says about one message. */
export type CallbackStatus = "accepted" | "delivered" | "failed";

export type StatusCallback = {
  /** The ledger row the send was tagged with (Twilio's `m` in the StatusCallback URL, WhatsApp's biz_opaque_callback_data), if any. */
  messageId: number | null;
  providerId: string;
  status: CallbackStatus;
  errorCode: string | null;
  errorMessage: string | null;
};

/** The ledger row a WhatsApp status names through biz_opaque_callback_data ("m:<id>", src/worker/messaging/provider-send.ts). */
export function messageIdOfReference(reference: string | null | undefined): number | null {
  const match = /^m:(\d{1,15})$/.exec(reference ?? "");
  return match ? Number(match[1]) : null;
}

/**
 * Applies a status callback. One naming its row settles a send still in doubt and moves it on as
 * the receipt says, in one transaction (message-receipts.ts settleFromCallback). One naming no row
 * is a delivery receipt only: a sent row moves to delivered or failed, or the receipt waits for its
 * send to be recorded (recordDeliveryStatus); "accepted" alone says nothing new.
 */
export async function applyStatusCallback(env: Pick<Env, "DB">, callback: StatusCallback): Promise<void> {
  const db = dbFor(env.DB);
  const { messageId, providerId, status, errorCode, errorMessage } = callback;
  if (messageId !== null) return settleFromCallback(db, { messageId, providerId, status, errorCode, errorMessage });
  if (status !== "accepted") await recordDeliveryStatus(db, providerId, status, errorCode, errorMessage);
}
