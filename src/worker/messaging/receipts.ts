import { and, eq, isNull, or, sql } from "drizzle-orm";
import { dbFor } from "../db/client";
import { campaignMessages } from "../db/schema";
import { finishStatement } from "./finish-campaign";
import { deliveryStatusStatements, recordDeliveryStatus } from "./opt-outs";

/** What a WhatsApp row whose send may or may not have gone out, and cannot be asked about, ends with. */
export const IN_DOUBT = {
  errorCode: "in_doubt",
  errorMessage:
    "The sender stopped before recording WhatsApp's answer and no status arrived; WhatsApp cannot be asked whether it went out, so it is not sent again",
} as const;

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
 * Applies a status callback. A callback naming its row settles a send still in 'sending' (its
 * answer lost to a time-out, or the consumer not done writing it): the row gets the provider's id
 * and the status, and is never sent again. Then the delivered/failed outcome moves a 'sent' row as
 * any receipt does, or waits for its send to be recorded (opt-outs.ts recordDeliveryStatus).
 *
 * One transaction, one round trip per callback (one arrives for every message sent): the receipt's
 * statements come after the settling update and find nothing to do when it settled the row (no
 * 'sent' row carries the id, and a row does, so nothing is kept); the campaign closes if that was
 * its last row.
 */
export async function applyStatusCallback(env: Pick<Env, "DB">, callback: StatusCallback): Promise<void> {
  const db = dbFor(env.DB);
  const receipt =
    callback.status === "accepted" ? [] : deliveryStatusStatements(db, callback.providerId, callback.status, callback.errorCode, callback.errorMessage);
  if (callback.messageId === null) {
    if (callback.status !== "accepted") await recordDeliveryStatus(db, callback.providerId, callback.status, callback.errorCode, callback.errorMessage);
    return;
  }
  const m = campaignMessages;
  const settle = db
    .update(m)
    .set({
      status: callback.status === "accepted" ? "sent" : callback.status,
      providerId: callback.providerId,
      errorCode: callback.status === "failed" ? callback.errorCode : null,
      errorMessage: callback.status === "failed" ? callback.errorMessage : null,
      heldUntil: null,
      updatedAt: Date.now(),
    })
    .where(
      and(
        eq(m.id, callback.messageId),
        // A row in doubt (its sender stopped with nothing recorded, WhatsApp could not be asked) is
        // settled by a status that arrives late as well.
        or(eq(m.status, "sending"), and(eq(m.status, "failed"), eq(m.errorCode, IN_DOUBT.errorCode))),
        or(isNull(m.providerId), eq(m.providerId, callback.providerId)),
      ),
    );
  const finish = finishStatement(db, sql`(SELECT ${m.campaignId} FROM ${m} WHERE ${m.id} = ${callback.messageId})`);
  await db.batch([settle, ...receipt, finish]);
}
