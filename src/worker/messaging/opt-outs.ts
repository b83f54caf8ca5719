import type { Channel } from "./audience";

/**
 * Inbound keywords (the carriers' and Twilio's standard set). A message counts as a keyword when,
 * trimmed of spaces and punctuation, it is exactly that word in any case: "Stop." opts out,
 * "please don't stop" does not.
 */
export const STOP_KEYWORDS = ["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "REVOKE", "OPTOUT"] as const;
export const START_KEYWORDS = ["START", "UNSTOP"] as const;
export const HELP_KEYWORDS = ["HELP"] as const;

export type Keyword = { kind: "stop" | "start" | "help"; word: string };

export function inboundKeyword(body: string | null | undefined): Keyword | null {
  const word = (body ?? "").replace(/^[\s\p{P}]+|[\s\p{P}]+$/gu, "").toUpperCase();
  if ((STOP_KEYWORDS as readonly string[]).includes(word)) return { kind: "stop", word };
  if ((START_KEYWORDS as readonly string[]).includes(word)) return { kind: "start", word };
  if ((HELP_KEYWORDS as readonly string[]).includes(word)) return { kind: "help", word };
  return null;
}

export function helpReply(env: Pick<Env, "APP_ORIGIN">): string {
  return `Blockpilot: help at ${env.APP_ORIGIN.replace(/\/$/, "")}/contact, 7 am to 10 pm EST. Reply STOP to opt out, START to opt back in.`;
}

/** The opt-out row (numbers without an account included) and the account's flag, in one transaction. */
export async function optOut(db: D1Database, phone: string, channel: Channel, keyword: string, at = Date.now()) {
  const flag = channel === "sms" ? "sms_opt_out" : "whatsapp_opt_out";
  await db.batch([
    db
      .prepare(
        "INSERT INTO opt_outs (phone, channel, keyword, at) VALUES (?, ?, ?, ?) ON CONFLICT(phone, channel) DO UPDATE SET keyword = excluded.keyword, at = excluded.at",
      )
      .bind(phone, channel, keyword, at),
    db.prepare(`UPDATE users SET ${flag} = 1 WHERE phone = ?`).bind(phone),
  ]);
}

export async function optIn(db: D1Database, phone: string, channel: Channel) {
  const flag = channel === "sms" ? "sms_opt_out" : "whatsapp_opt_out";
  await db.batch([
    db.prepare("DELETE FROM opt_outs WHERE phone = ? AND channel = ?").bind(phone, channel),
    db.prepare(`UPDATE users SET ${flag} = 0 WHERE phone = ?`).bind(phone),
  ]);
}

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
