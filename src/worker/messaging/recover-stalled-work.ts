import { and, asc, eq, gte, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { dbFor, jsonList } from "../db/client";
import { campaignMessages, campaigns } from "../db/schema";
import type { Logger } from "../log";
import type { Job } from "../queue";
import { closeIfDone, stampRequeued, touchRequeued } from "./message-ledger";
import { dropReceiptsBefore } from "./message-receipts";
import { leaseMs, requeueAfterMs } from "./waits";

/** Each cron tick looks at no more than this many of each kind of stalled work. */
const SWEEP_LIMIT = 500;
/** A queued campaign whose expand job should long have run. */
const QUEUED_GRACE_MS = 60_000;
/** An expansion that stopped moving its cursor (it updates it every thousand rows). */
const EXPANDING_GRACE_MS = 5 * 60_000;
/** Pending rows queued again per cron tick at most (one sendBatch per hundred). */
const PENDING_REQUEUE_LIMIT = 10_000;
/** An early delivery receipt waits this long for its send to be recorded. */
const RECEIPT_KEEP_MS = 24 * 3_600_000;

/**
 * The safety net behind the queue's own guarantees, run by the cron trigger: a campaign whose
 * expand job never got queued, an expansion that died between its steps, a row left in 'sending'
 * (in doubt) after its queue message was lost or given up, pending rows whose jobs were lost (a
 * crash of the runtime, a failed sendBatch), a campaign whose last row settled without closing it.
 * Everything it re-queues is idempotent, so running it while work is in flight is harmless.
 */
export async function recoverStalledWork(env: Env, log: Logger, now = Date.now()): Promise<void> {
  const db = dbFor(env.DB);
  const stalled = await db
    .select({ id: campaigns.id })
    .from(campaigns)
    .where(
      or(
        and(eq(campaigns.status, "queued"), lt(campaigns.updatedAt, now - QUEUED_GRACE_MS)),
        and(eq(campaigns.status, "expanding"), lt(campaigns.updatedAt, now - EXPANDING_GRACE_MS)),
        and(eq(campaigns.status, "scheduled"), lt(campaigns.scheduledAt, now - QUEUED_GRACE_MS), lt(campaigns.updatedAt, now - QUEUED_GRACE_MS)),
      ),
    )
    .orderBy(asc(campaigns.id))
    .limit(SWEEP_LIMIT);
  for (let i = 0; i < stalled.length; i += 100) {
    await env.DISPATCH.sendBatch(stalled.slice(i, i + 100).map((c) => ({ body: { kind: "expand", campaignId: c.id } satisfies Job })));
  }
  if (stalled.length > 0) {
    await db
      .update(campaigns)
      .set({ updatedAt: now })
      .where(inArray(campaigns.id, jsonList(stalled.map((c) => c.id))));
  }

  // Rows in doubt: claimed and never settled, whose claim (a consumer that died mid-send, or between
  // the provider's answer and the ledger write) or hold (a send that got no answer) ran out a while
  // ago with no job left to take them up. They stay 'sending' (never released to 'pending', which
  // would send them blindly): the job queued again asks the provider first (SMS) or fails the row
  // visibly as in doubt (WhatsApp), docs/messaging-rules.md. `requeued_at` keeps each to one job
  // per grace period; `updated_at` is left alone, as it is the claim's age.
  const m = campaignMessages;
  const grace = requeueAfterMs(env);
  const lease = leaseMs(env);
  const inDoubt = await stampRequeued(
    db,
    db
      .select({ id: m.id })
      .from(m)
      .where(
        and(
          eq(m.status, "sending"),
          lt(m.updatedAt, now - grace),
          sql`coalesce(${m.heldUntil}, ${m.updatedAt} + ${lease}) < ${now - grace}`,
          or(isNull(m.requeuedAt), lt(m.requeuedAt, now - grace)),
        ),
      )
      .limit(SWEEP_LIMIT),
    now,
  );
  await queueDispatch(env, inDoubt);

  // Pending rows whose dispatch job is gone (the queue lost it, or a sendBatch failed after the rows
  // were written): on a channel where nothing was claimed for the first time for a whole grace
  // period, every sending campaign's pending rows that waited that long are queued again (each at most once per grace period).
  // A busy channel's pending rows are left alone: their jobs are alive, waiting for send slots, and
  // a second job would take a second slot. The job is idempotent (the claim is one conditional
  // update), so a row whose job was merely slow costs a look, never a second message.
  const stranded = await requeuePending(env, now, grace);

  // Deferred messages whose time has long come but whose delayed job never arrived.
  const overdue = await touchRequeued(
    db,
    db
      .select({ id: m.id })
      .from(m)
      .where(and(eq(m.status, "deferred"), lt(m.deferredUntil, now - QUEUED_GRACE_MS), lt(m.updatedAt, now - QUEUED_GRACE_MS)))
      .limit(SWEEP_LIMIT),
    now,
  );
  await queueDispatch(env, overdue);

  // Receipts that never met their send (replies outside any campaign, or sends long settled).
  await dropReceiptsBefore(db, now - RECEIPT_KEEP_MS);

  const sending = await db.select({ id: campaigns.id }).from(campaigns).where(eq(campaigns.status, "sending")).orderBy(asc(campaigns.id)).limit(SWEEP_LIMIT);
  for (const c of sending) await closeIfDone(db, c.id);

  if (stalled.length + inDoubt.length + stranded + overdue.length > 0) {
    log.warn("sweep.recovered", { campaigns: stalled.length, inDoubt: inDoubt.length, pending: stranded, deferred: overdue.length });
  }
}

/** One dispatch job per row, a hundred per sendBatch (the queue's most). */
async function queueDispatch(env: Env, rows: readonly { id: number }[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 100) {
    await env.DISPATCH.sendBatch(rows.slice(i, i + 100).map((row) => ({ body: { kind: "dispatch", messageId: row.id } satisfies Job })));
  }
}

/** The stranded pending rows of idle channels, queued again and stamped; answers how many. */
async function requeuePending(env: Env, now: number, grace: number): Promise<number> {
  const db = dbFor(env.DB);
  const m = campaignMessages;
  const since = now - grace;
  // Channels that claimed a row for the first time within the grace period (the index on
  // (status, updated_at) bounds it to the rows touched since; a first claim touches its row).
  const busy = await db
    .selectDistinct({ channel: campaigns.channel })
    .from(m)
    .innerJoin(campaigns, eq(campaigns.id, m.campaignId))
    .where(and(inArray(m.status, ["sending", "sent", "delivered", "failed", "skipped"]), gte(m.updatedAt, since), gte(m.firstClaimedAt, since)));
  const idle = (["sms", "whatsapp"] as const).filter((channel) => !busy.some((b) => b.channel === channel));
  if (idle.length === 0) return 0;
  const ids = await db
    .select({ id: m.id })
    .from(m)
    .innerJoin(campaigns, eq(campaigns.id, m.campaignId))
    .where(
      and(
        eq(m.status, "pending"),
        lt(m.updatedAt, since),
        or(isNull(m.requeuedAt), lt(m.requeuedAt, since)),
        eq(campaigns.status, "sending"),
        inArray(campaigns.channel, idle),
      ),
    )
    .orderBy(asc(m.id))
    .limit(PENDING_REQUEUE_LIMIT);
  // Stamped before they are queued: a job that runs at once finds the stamp, and a sendBatch that
  // fails leaves stamped rows the next period takes up again.
  for (let i = 0; i < ids.length; i += 1_000) {
    await stampRequeued(db, jsonList(ids.slice(i, i + 1_000).map((r) => r.id)), now);
  }
  await queueDispatch(env, ids);
  return ids.length;
}
