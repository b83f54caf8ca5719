import { and, eq, notExists, sql } from "drizzle-orm";
import { type Db, excluded } from "../db/client";
import { campaignMessages, deliveryReceipts } from "../db/schema";

// Opt-outs and opt-ins live in the consent ledger (src/worker/compliance/consent.ts).

/**
 * A delivery receipt moves a sent row to delivered or failed; a row already settled otherwise is
 * left as it is. A receipt for a send not recorded yet (the provider called back before the
 * consumer wrote the provider id) is kept for the consumer to apply. Both statements run as one
 * transaction, so the receipt is either applied here or kept, never lost between the two.
 */
export async function recordDeliveryStatus(db: Db, providerId: string, status: "delivered" | "failed", errorCode: string | null, errorMessage: string | null) {
  await db.batch(deliveryStatusStatements(db, providerId, status, errorCode, errorMessage));
}

/** recordDeliveryStatus's two statements, for a caller that runs them in its own transaction. */
export function deliveryStatusStatements(db: Db, providerId: string, status: "delivered" | "failed", errorCode: string | null, errorMessage: string | null) {
  const now = Date.now();
  const sentRow = and(eq(campaignMessages.providerId, providerId), eq(campaignMessages.status, "sent"));
  const apply =
    status === "delivered"
      ? db.update(campaignMessages).set({ status: "delivered", updatedAt: now }).where(sentRow)
      : db.update(campaignMessages).set({ status: "failed", errorCode, errorMessage, updatedAt: now }).where(sentRow);
  const r = deliveryReceipts;
  // Kept only while no row carries the provider id; a kept "failed" is final.
  const receipt = db
    .select({
      providerId: sql<string>`${providerId}`.as("provider_id"),
      status: sql<"delivered" | "failed">`${status}`.as("status"),
      errorCode: sql<string | null>`${errorCode}`.as("error_code"),
      errorMessage: sql<string | null>`${errorMessage}`.as("error_message"),
      receivedAt: sql<number>`${now}`.as("received_at"),
    })
    .from(sql`(SELECT 1)`)
    .where(notExists(db.select({ one: sql`1` }).from(campaignMessages).where(eq(campaignMessages.providerId, providerId))));
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
