import { and, eq, isNull, or } from "drizzle-orm";
import { dbFor } from "../db/client";
import { campaignMessages } from "../db/schema";
import { finishIfDone } from "./dispatch";
import { recordDeliveryStatus } from "./opt-outs";

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

/** The ledger row a WhatsApp status names through biz_opaque_callback_data ("m:<id>", src/worker/messaging/dispatch.ts). */
export function messageIdOfReference(reference: string | null | undefined): number | null {
  const match = /^m:(\d{1,15})$/.exec(reference ?? "");
  return match ? Number(match[1]) : null;
}

/**
 * Applies a status callback. A callback naming its row settles a send still in 'sending' (its
 * answer lost to a time-out, or the consumer not done writing it): the row gets the provider's id
 * and the status, and is never sent again. Then the delivered/failed outcome moves a 'sent' row as
 * any receipt does, or waits for its send to be recorded (opt-outs.ts recordDeliveryStatus).
 */
export async function applyStatusCallback(env: Pick<Env, "DB">, callback: StatusCallback): Promise<void> {
  if (callback.messageId !== null) {
    const now = Date.now();
    const settled = await dbFor(env.DB)
      .update(campaignMessages)
      .set({
        status: callback.status === "accepted" ? "sent" : callback.status,
        providerId: callback.providerId,
        errorCode: callback.status === "failed" ? callback.errorCode : null,
        errorMessage: callback.status === "failed" ? callback.errorMessage : null,
        heldUntil: null,
        updatedAt: now,
      })
      .where(
        and(
          eq(campaignMessages.id, callback.messageId),
          eq(campaignMessages.status, "sending"),
          or(isNull(campaignMessages.providerId), eq(campaignMessages.providerId, callback.providerId)),
        ),
      )
      .returning({ campaignId: campaignMessages.campaignId })
      .get();
    if (settled) {
      await finishIfDone(dbFor(env.DB), settled.campaignId);
      return;
    }
  }
  if (callback.status !== "accepted") {
    await recordDeliveryStatus(dbFor(env.DB), callback.providerId, callback.status, callback.errorCode, callback.errorMessage);
  }
}
