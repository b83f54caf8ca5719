import { and, eq, gt, inArray, isNull, lt, lte, ne, or, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { ERASED_PHONE_PREFIX } from "../../shared/account";
import { columnNames, type Db } from "../db/client";
import { campaignMessages, campaigns, deliveryReceipts } from "../db/schema";
import { type ExpiredRows, RETENTION } from "../retention";
import { EXCLUSION_MESSAGES } from "./exclusions";
import { fromOf, type MessageEvent } from "./message-transitions";

/**
 * The message ledger: the one writer of a campaign message's state (`campaign_messages`), and the
 * one that closes a campaign once its last row is settled. The jobs (expand, dispatch,
 * provider-send, receipts, the sweep, the commands, erasure) decide; these statements write, each
 * moving a row only from the statuses its event names in ./message-transitions.ts: the send path
 * first, then the rows a campaign's expansion writes, "retry failed" taking failed rows, what
 * erasing an account does to its messages, and retention. Delivery receipts and status callbacks
 * are written by ./message-receipts.ts.
 */

const m = campaignMessages;

/** The ledger rows an event may move: its `from` statuses. */
export const movableBy = (event: MessageEvent): SQL => inArray(m.status, [...fromOf(event)]);

/** A provider's error as the ledger keeps it (its text bounded). */
export type MessageError = { errorCode: string; errorMessage: string };
const bounded = (e: MessageError) => ({ errorCode: e.errorCode, errorMessage: e.errorMessage.slice(0, 500) });

/** What a WhatsApp row whose send may or may not have gone out, and cannot be asked about, ends with. */
export const IN_DOUBT = {
  errorCode: "in_doubt",
  errorMessage:
    "The sender stopped before recording WhatsApp's answer and no status arrived; WhatsApp cannot be asked whether it went out, so it is not sent again",
} as const;

/**
 * A campaign is done when none of its rows is waiting or being sent. Cheap: an index range on
 * (campaign, status). The campaign may be named by a subquery (a status callback knows only its row).
 */
export function closeStatement(db: Db, campaignId: number | SQL) {
  return db
    .update(campaigns)
    .set({ status: "done", updatedAt: Date.now() })
    .where(
      and(
        eq(campaigns.id, campaignId),
        eq(campaigns.status, "sending"),
        sql`NOT EXISTS (SELECT 1 FROM ${m} WHERE ${m.campaignId} = ${campaignId} AND ${m.status} IN ('pending', 'deferred', 'sending'))`,
      ),
    );
}

export async function closeIfDone(db: Db, campaignId: number): Promise<void> {
  await closeStatement(db, campaignId);
}

/**
 * The claim: one conditional UPDATE. A row another consumer claimed (and whose lease is live), a
 * row still waiting for a callback, or one already settled is not ours, whatever the queue
 * delivered twice. Answers the row's attempts when it is ours.
 */
export function claimMessage(db: Db, id: number, now: number, leaseMs: number): Promise<{ attempts: number } | undefined> {
  return db
    .update(m)
    .set({ status: "sending", attempts: sql`${m.attempts} + 1`, heldUntil: null, firstClaimedAt: sql`coalesce(${m.firstClaimedAt}, ${now})`, updatedAt: now })
    .where(and(eq(m.id, id), movableBy("claim"), or(ne(m.status, "sending"), lt(m.updatedAt, now - leaseMs), lte(m.heldUntil, now))))
    .returning({ attempts: m.attempts })
    .get();
}

/**
 * The provider took the message: in one transaction the row says sent with the provider's id, a
 * delivery receipt that beat us here is applied and dropped, and a campaign whose last row this was
 * is closed.
 */
export async function recordSent(db: Db, row: { id: number; campaignId: number }, providerId: string, now = Date.now()): Promise<void> {
  const r = deliveryReceipts;
  await db.batch([
    db
      .update(m)
      .set({ status: "sent", providerId, errorCode: null, errorMessage: null, updatedAt: now })
      .where(and(eq(m.id, row.id), movableBy("sent"))),
    db
      .update(m)
      .set({ status: sql`${r.status}`, errorCode: sql`${r.errorCode}`, errorMessage: sql`${r.errorMessage}`, updatedAt: now })
      .from(r)
      .where(and(eq(r.providerId, providerId), eq(m.id, row.id), movableBy("earlyReceipt"))),
    db.delete(r).where(eq(r.providerId, providerId)),
    closeStatement(db, row.campaignId),
  ]);
}

/**
 * A send that got no answer (or a lookup that failed): the row stays claimed ('sending') until
 * `until`, with the error visible; its callback settles it meanwhile, or the returning job asks again.
 */
export async function holdMessage(db: Db, id: number, until: number, error: MessageError, now = Date.now()): Promise<void> {
  await db
    .update(m)
    .set({ heldUntil: until, ...bounded(error), updatedAt: now })
    .where(and(eq(m.id, id), movableBy("hold")));
}

/**
 * The row is handed back (pending) for the job's retry: a transient failure, with its error visible
 * until the retry, or a fault of ours (no error: the last one stays).
 */
export async function retryMessage(db: Db, id: number, error: MessageError | null, now = Date.now()): Promise<void> {
  await db
    .update(m)
    .set({ status: "pending", ...(error ? bounded(error) : {}), updatedAt: now })
    .where(and(eq(m.id, id), movableBy("retry")));
}

/** The provider refused the message for good; the campaign closes if this was its last row. */
export async function failMessage(db: Db, row: { id: number; campaignId: number }, error: MessageError, now = Date.now()): Promise<void> {
  await db.batch([
    db
      .update(m)
      .set({ status: "failed", ...bounded(error), updatedAt: now })
      .where(and(eq(m.id, row.id), movableBy("failed"))),
    closeStatement(db, row.campaignId),
  ]);
}

/** A WhatsApp claim that ran out with nothing recorded (no hold) fails as in doubt; the campaign closes if this was its last row. */
export async function failInDoubt(db: Db, row: { id: number; campaignId: number }, now = Date.now()): Promise<void> {
  await db.batch([
    db
      .update(m)
      .set({ status: "failed", ...IN_DOUBT, updatedAt: now })
      .where(and(eq(m.id, row.id), movableBy("inDoubt"), isNull(m.heldUntil))),
    closeStatement(db, row.campaignId),
  ]);
}

/** Left out at send time (opted out, or a marketing rule): skipped with the reason, then the campaign closes if it is done. */
export async function skipMessage(db: Db, row: { id: number; campaignId: number }, reason: MessageError, now = Date.now()): Promise<void> {
  await db
    .update(m)
    .set({ status: "skipped", ...reason, updatedAt: now })
    .where(and(eq(m.id, row.id), movableBy("skipped")));
  await closeIfDone(db, row.campaignId);
}

/** Outside the recipient's allowed hours: deferred until `until`. */
export async function deferMessage(db: Db, id: number, until: number, now = Date.now()): Promise<void> {
  await db
    .update(m)
    .set({ status: "deferred", deferredUntil: until, updatedAt: now })
    .where(and(eq(m.id, id), movableBy("deferred")));
}

/** The queue gave up on the message: the row fails, says it was dead-lettered, and the campaign closes if it is done. */
export async function deadLetterMessage(db: Db, row: { id: number; campaignId: number }, errorMessage: string, now = Date.now()): Promise<void> {
  await db
    .update(m)
    .set({ status: "failed", deadLettered: true, errorCode: "dead_lettered", errorMessage: errorMessage.slice(0, 500), updatedAt: now })
    .where(and(eq(m.id, row.id), movableBy("deadLettered")));
  await closeIfDone(db, row.campaignId);
}

/** The expansion died: every row it never queued (past the campaign's dispatch cursor) fails, for the caller's transaction. */
export function failUnqueuedStatement(db: Db, campaignId: number, now = Date.now()) {
  return db
    .update(m)
    .set({ status: "failed", deadLettered: true, errorCode: "expand_failed", errorMessage: "The campaign could not be prepared for sending", updatedAt: now })
    .where(
      and(
        eq(m.campaignId, campaignId),
        movableBy("expansionFailed"),
        gt(m.id, sql`(SELECT ${campaigns.dispatchCursor} FROM ${campaigns} WHERE ${campaigns.id} = ${campaignId})`),
      ),
    );
}

/**
 * The sweep's stamp on rows it queues again (`ids`: its selection), so each is queued at most once
 * per grace period; the status stays, and so does `updated_at` (the claim's age). Answers the rows stamped.
 */
export function stampRequeued(db: Db, ids: SQLWrapper, now: number) {
  return db
    .update(m)
    .set({ requeuedAt: now })
    .where(and(inArray(m.id, ids), movableBy("requeue")))
    .returning({ id: m.id });
}

/** The sweep's stamp on overdue deferred rows it queues again: their `updated_at`, which its selection reads. Answers the rows stamped. */
export function touchRequeued(db: Db, ids: SQLWrapper, now: number) {
  return db
    .update(m)
    .set({ updatedAt: now })
    .where(and(inArray(m.id, ids), movableBy("requeue")))
    .returning({ id: m.id });
}

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
