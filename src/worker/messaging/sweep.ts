import type { Logger } from "../log";
import type { Job } from "../queue";
import { finishIfDone, LEASE_MS } from "./dispatch";

/** Each cron tick looks at no more than this many of each kind of stalled work. */
const SWEEP_LIMIT = 500;
/** A queued campaign whose expand job should long have run. */
const QUEUED_GRACE_MS = 60_000;
/** An expansion that stopped moving its cursor (it updates it every thousand rows). */
const EXPANDING_GRACE_MS = 5 * 60_000;
/** Well past the lease: the queue's own retries of that message have had their chance. */
const ABANDONED_SENDING_MS = 5 * LEASE_MS;
/** An early delivery receipt waits this long for its send to be recorded. */
const RECEIPT_KEEP_MS = 24 * 3_600_000;

/**
 * The safety net behind the queue's own guarantees, run by the cron trigger: a campaign whose
 * expand job never got queued, an expansion that died between its steps, a row left in 'sending'
 * after its queue message was given up, a campaign whose last row settled without closing it.
 * Everything it re-queues is idempotent, so running it while work is in flight is harmless.
 */
export async function recoverStalledWork(env: Env, log: Logger, now = Date.now()): Promise<void> {
  const db = env.DB;
  const stalled = await db
    .prepare(
      `SELECT id FROM campaigns WHERE (status = 'queued' AND updated_at < ?) OR (status = 'expanding' AND updated_at < ?)
         OR (status = 'scheduled' AND scheduled_at < ? AND updated_at < ?) ORDER BY id LIMIT ?`,
    )
    .bind(now - QUEUED_GRACE_MS, now - EXPANDING_GRACE_MS, now - QUEUED_GRACE_MS, now - QUEUED_GRACE_MS, SWEEP_LIMIT)
    .all<{ id: number }>();
  for (let i = 0; i < stalled.results.length; i += 100) {
    await env.DISPATCH.sendBatch(stalled.results.slice(i, i + 100).map((c) => ({ body: { kind: "expand", campaignId: c.id } satisfies Job })));
  }
  if (stalled.results.length > 0) {
    await db
      .prepare("UPDATE campaigns SET updated_at = ? WHERE id IN (SELECT value FROM json_each(?))")
      .bind(now, JSON.stringify(stalled.results.map((c) => c.id)))
      .run();
  }

  // Released to 'pending' first, so the next tick does not find (and queue) them again.
  const abandoned = await db
    .prepare(
      `UPDATE campaign_messages SET status = 'pending', updated_at = ?
       WHERE id IN (SELECT id FROM campaign_messages WHERE status = 'sending' AND updated_at < ? LIMIT ?) RETURNING id`,
    )
    .bind(now, now - ABANDONED_SENDING_MS, SWEEP_LIMIT)
    .all<{ id: number }>();
  for (let i = 0; i < abandoned.results.length; i += 100) {
    await env.DISPATCH.sendBatch(abandoned.results.slice(i, i + 100).map((m) => ({ body: { kind: "dispatch", messageId: m.id } satisfies Job })));
  }

  // Deferred messages whose time has long come but whose delayed job never arrived.
  const overdue = await db
    .prepare(
      `UPDATE campaign_messages SET updated_at = ?
       WHERE id IN (SELECT id FROM campaign_messages WHERE status = 'deferred' AND deferred_until < ? AND updated_at < ? LIMIT ?) RETURNING id`,
    )
    .bind(now, now - QUEUED_GRACE_MS, now - QUEUED_GRACE_MS, SWEEP_LIMIT)
    .all<{ id: number }>();
  for (let i = 0; i < overdue.results.length; i += 100) {
    await env.DISPATCH.sendBatch(overdue.results.slice(i, i + 100).map((m) => ({ body: { kind: "dispatch", messageId: m.id } satisfies Job })));
  }

  // Receipts that never met their send (replies outside any campaign, or sends long settled).
  await db
    .prepare("DELETE FROM delivery_receipts WHERE received_at < ?")
    .bind(now - RECEIPT_KEEP_MS)
    .run();

  const sending = await db.prepare("SELECT id FROM campaigns WHERE status = 'sending' ORDER BY id LIMIT ?").bind(SWEEP_LIMIT).all<{ id: number }>();
  for (const c of sending.results) await finishIfDone(db, c.id);

  if (stalled.results.length + abandoned.results.length > 0) {
    log.warn("sweep.recovered", { campaigns: stalled.results.length, messages: abandoned.results.length });
  }
}
