import { and, eq, inArray, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import { ERASED_PHONE_PREFIX } from "../../shared/account";
import { columnNames, type Db } from "../db/client";
import { campaignMessages } from "../db/schema";
import { type ExpiredRows, RETENTION } from "../retention";
import { EXCLUSION_MESSAGES } from "./exclusions";
import { movableBy } from "./message-ledger";

/**
 * The message ledger's statements outside the send path: the rows a campaign's expansion writes,
 * "retry failed" taking failed rows, what erasing an account does to its messages, and retention.
 */

const m = campaignMessages;

/**
 * Expansion writes a campaign's rows in one set-based statement, idempotent through the (campaign,
 * phone) unique index: a retried expansion inserts nothing twice. `recipients` (the expansion's
 * choice) yields user_id, phone, name, exclusion (why the number is left out, or null) and
 * deferred_until (when a message outside its recipient's hours may go, or null). A left-out number
 * is written as skipped with its reason, a deferred one as deferred, any other as pending.
 */
export function insertMessages(db: Db, campaignId: number, recipients: SQL, now: number) {
  const reasons = sql.join(
    Object.entries(EXCLUSION_MESSAGES).map(([code, text]) => sql`WHEN ${code} THEN ${text}`),
    sql` `,
  );
  return db.run(
    sql`INSERT OR IGNORE INTO ${m} (${columnNames(m.campaignId, m.userId, m.phone, m.name, m.status, m.deferredUntil, m.errorCode, m.errorMessage, m.updatedAt)})
      SELECT ${campaignId}, r.user_id, r.phone, r.name,
        CASE WHEN r.exclusion IS NOT NULL THEN 'skipped' WHEN r.deferred_until IS NOT NULL THEN 'deferred' ELSE 'pending' END,
        CASE WHEN r.exclusion IS NULL THEN r.deferred_until END, r.exclusion, CASE r.exclusion ${reasons} END, ${now}
      FROM (${recipients}) r`,
  );
}

/** A campaign's failed rows no retry has taken yet. */
export const retryableOf = (campaignId: number) => and(eq(m.campaignId, campaignId), movableBy("retryTaken"), isNull(m.retriedBy));

/** "Retry failed" takes the rows no retry has taken for the retry campaign (`retryId`), for the caller's transaction; answers the rows taken. */
export function takeForRetry(db: Db, campaignId: number, retryId: SQL<number>) {
  return db.update(m).set({ retriedBy: retryId }).where(retryableOf(campaignId)).returning({ id: m.id });
}

/**
 * What erasing an account does to its messages (the account's rows, and the number's when `phone`
 * is given: no other account holds it), for the erasure's transaction: unsent ones are not sent,
 * failed ones not retried, then the number and name go.
 */
export function eraseMessagesStatements(db: Db, of: { userId: number; phone: string | null }, now: number) {
  const mine = of.phone === null ? eq(m.userId, of.userId) : or(eq(m.userId, of.userId), eq(m.phone, of.phone));
  return [
    db
      .update(m)
      .set({ status: "skipped", errorCode: "erased", errorMessage: "The account was erased", updatedAt: now })
      .where(and(mine, movableBy("erased"))),
    // retried_by 0 names no campaign: "retry failed" takes only rows whose retried_by is null.
    db
      .update(m)
      .set({ retriedBy: 0 })
      .where(and(mine, movableBy("retryTaken"), isNull(m.retriedBy))),
    // The provider's error text goes with the number (Twilio's usually quote it, and the campaign
    // CSV shows it); the error code stays, and so does our own "erased" wording.
    db
      .update(m)
      .set({
        phone: sql`${ERASED_PHONE_PREFIX} || ${m.id}`,
        name: null,
        userId: null,
        errorMessage: sql`CASE WHEN ${m.errorCode} = 'erased' THEN ${m.errorMessage} ELSE NULL END`,
      })
      .where(mine),
  ] as const;
}

/**
 * Messages past their retention (RETENTION.campaignMessages after their last change), oldest first
 * by id, for the retention run's transaction (D1 has no DELETE … LIMIT).
 * campaign_messages_lease (status, updated_at) serves it: every status is named.
 */
export const expiredMessages: ExpiredRows = (db, before, limit) =>
  db
    .delete(m)
    .where(
      inArray(
        m.id,
        sql`(SELECT ${m.id} FROM ${m} WHERE ${and(
          inArray(m.status, ["pending", "deferred", "sending", "sent", "delivered", "failed", "skipped"]),
          lt(m.updatedAt, before(RETENTION.campaignMessages)),
        )} LIMIT ${limit})`,
      ),
    );
