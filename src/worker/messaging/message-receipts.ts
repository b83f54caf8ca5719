import { and, eq, isNull, lt, ne, notExists, or, sql } from "drizzle-orm";
import { type Db, excluded } from "../db/client";
import { campaignMessages, deliveryReceipts } from "../db/schema";
import { closeStatement, IN_DOUBT, movableBy } from "./message-ledger";

/**
 * The message ledger's statements for what providers report after a send: delivery receipts (a
 * sent row to delivered or failed, or the receipt kept in `delivery_receipts` when it beats its
 * send's record) and status callbacks that name their row (a send in doubt settled).
 */

const m = campaignMessages;

export type DeliveryStatus = "delivered" | "failed";

/**
 * A delivery receipt moves a sent row to delivered or failed; a row already settled otherwise is
 * left as it is. A receipt for a send not recorded yet (the provider called back before the
 * consumer wrote the provider id) is kept for the consumer to apply. Both statements run as one
 * transaction, so the receipt is either applied here or kept, never lost between the two.
 */
export async function recordDeliveryStatus(db: Db, providerId: string, status: DeliveryStatus, errorCode: string | null, errorMessage: string | null) {
  await db.batch(deliveryStatusStatements(db, providerId, status, errorCode, errorMessage));
}

/** recordDeliveryStatus's two statements, for a caller that runs them in its own transaction. */
export function deliveryStatusStatements(db: Db, providerId: string, status: DeliveryStatus, errorCode: string | null, errorMessage: string | null) {
  const now = Date.now();
  const sentRow = and(eq(m.providerId, providerId), movableBy("receipt"));
  const apply =
    status === "delivered"
      ? db.update(m).set({ status: "delivered", updatedAt: now }).where(sentRow)
      : db.update(m).set({ status: "failed", errorCode, errorMessage, updatedAt: now }).where(sentRow);
  const r = deliveryReceipts;
  // Kept only while no row carries the provider id; a kept "failed" is final.
  const receipt = db
    .select({
      providerId: sql<string>`${providerId}`.as("provider_id"),
      status: sql<DeliveryStatus>`${status}`.as("status"),
      errorCode: sql<string | null>`${errorCode}`.as("error_code"),
      errorMessage: sql<string | null>`${errorMessage}`.as("error_message"),
      receivedAt: sql<number>`${now}`.as("received_at"),
    })
    .from(sql`(SELECT 1)`)
    .where(notExists(db.select({ one: sql`1` }).from(m).where(eq(m.providerId, providerId))));
  const keep = db
    .insert(r)
    .select(receipt)
    .onConflictDoUpdate({
      target: r.providerId,
      set: { status: excluded(r.status), errorCode: excluded(r.errorCode), errorMessage: excluded(r.errorMessage) },
      setWhere: sql`${r.status} <> 'failed'`,
    });
  return [apply, keep] as const;
}

export type SettlingCallback = {
  messageId: number;
  providerId: string;
  status: "accepted" | DeliveryStatus;
  errorCode: string | null;
  errorMessage: string | null;
};

/**
 * A callback naming its row settles a send still in 'sending' (its answer lost to a time-out, or
 * the consumer not done writing it), or one that failed in doubt: the row gets the provider's id
 * and the status, and is never sent again. Then the delivered/failed outcome moves a 'sent' row as
 * any receipt does, or is kept for its send.
 *
 * One transaction, one round trip per callback (one arrives for every message sent): the receipt's
 * statements come after the settling update and find nothing to do when it settled the row (no
 * 'sent' row carries the id, and a row does, so nothing is kept); the campaign closes if that was
 * its last row.
 */
export async function settleFromCallback(db: Db, callback: SettlingCallback): Promise<void> {
  const receipt =
    callback.status === "accepted" ? [] : deliveryStatusStatements(db, callback.providerId, callback.status, callback.errorCode, callback.errorMessage);
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
        movableBy("callback"),
        // A 'failed' row only when it is in doubt (its sender stopped with nothing recorded, WhatsApp
        // could not be asked): a status that arrives late settles it as well.
        or(ne(m.status, "failed"), eq(m.errorCode, IN_DOUBT.errorCode)),
        or(isNull(m.providerId), eq(m.providerId, callback.providerId)),
      ),
    );
  const close = closeStatement(db, sql`(SELECT ${m.campaignId} FROM ${m} WHERE ${m.id} = ${callback.messageId})`);
  await db.batch([settle, ...receipt, close]);
}

/** Kept receipts that never met their send by `before` (replies outside any campaign, or sends long settled) are dropped. */
export async function dropReceiptsBefore(db: Db, before: number): Promise<void> {
  await db.delete(deliveryReceipts).where(lt(deliveryReceipts.receivedAt, before));
}
