// Opt-outs and opt-ins live in the consent ledger (src/worker/compliance/consent.ts).

/**
 * A delivery receipt moves a sent row to delivered or failed; a row already settled otherwise is
 * left as it is. A receipt for a send not recorded yet (the provider called back before the
 * consumer wrote the provider id) is kept for the consumer to apply. Both statements run as one
 * transaction, so the receipt is either applied here or kept, never lost between the two.
 */
export async function recordDeliveryStatus(
  db: D1Database,
  providerId: string,
  status: "delivered" | "failed",
  errorCode: string | null,
  errorMessage: string | null,
) {
  const now = Date.now();
  const apply =
    status === "delivered"
      ? db.prepare("UPDATE campaign_messages SET status = 'delivered', updated_at = ? WHERE provider_id = ? AND status = 'sent'").bind(now, providerId)
      : db
          .prepare(
            "UPDATE campaign_messages SET status = 'failed', error_code = ?, error_message = ?, updated_at = ? WHERE provider_id = ? AND status = 'sent'",
          )
          .bind(errorCode, errorMessage, now, providerId);
  await db.batch([
    apply,
    db
      .prepare(
        `INSERT INTO delivery_receipts (provider_id, status, error_code, error_message, received_at)
         SELECT ?1, ?2, ?3, ?4, ?5 WHERE NOT EXISTS (SELECT 1 FROM campaign_messages WHERE provider_id = ?1)
         ON CONFLICT(provider_id) DO UPDATE SET status = excluded.status, error_code = excluded.error_code, error_message = excluded.error_message
           WHERE delivery_receipts.status <> 'failed'`,
      )
      .bind(providerId, status, errorCode, errorMessage, now),
  ]);
}
