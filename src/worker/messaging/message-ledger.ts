import { and, eq, gt, inArray, isNull, lt, lte, ne, or, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { campaignMessages, campaigns, deliveryReceipts } from "../db/schema";
import { fromOf, type MessageEvent } from "./message-transitions";

/**
 * The message ledger: the one writer of a campaign message's state (`campaign_messages`), and the
 * one that closes a campaign once its last row is settled. The jobs (expand, dispatch,
 * provider-send, receipts, the sweep, the commands, erasure) decide; these statements write, each
 * moving a row only from the statuses its event names in ./message-transitions.ts. Delivery
 * receipts and status callbacks are written by ./message-receipts.ts; expansion's insert, the
 * sweep's stamps, retries, erasure and retention by ./message-ledger-upkeep.ts.
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
