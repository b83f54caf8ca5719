import { and, asc, eq, inArray, lt, or, sql } from "drizzle-orm";
import { dbFor, jsonList } from "../db/client";
import { campaignMessages, campaigns, deliveryReceipts } from "../db/schema";
import type { Logger } from "../log";
import type { Job } from "../queue";
import { LEASE_MS } from "./dispatch";
import { finishIfDone } from "./finish";

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

  // Released to 'pending' first, so the next tick does not find (and queue) them again; a row held
  // after a send that got no answer stays held, so its job asks the provider before sending again.
  const m = campaignMessages;
  const abandoned = await db
    .update(m)
    .set({ status: sql`CASE WHEN ${m.heldUntil} IS NULL THEN 'pending' ELSE 'sending' END`, updatedAt: now })
    .where(
      inArray(
        m.id,
        db
          .select({ id: m.id })
          .from(m)
          .where(and(eq(m.status, "sending"), lt(m.updatedAt, now - ABANDONED_SENDING_MS)))
          .limit(SWEEP_LIMIT),
      ),
    )
    .returning({ id: m.id });
  for (let i = 0; i < abandoned.length; i += 100) {
    await env.DISPATCH.sendBatch(abandoned.slice(i, i + 100).map((row) => ({ body: { kind: "dispatch", messageId: row.id } satisfies Job })));
  }

  // Deferred messages whose time has long come but whose delayed job never arrived.
  const overdue = await db
    .update(m)
    .set({ updatedAt: now })
    .where(
      inArray(
        m.id,
        db
          .select({ id: m.id })
          .from(m)
          .where(and(eq(m.status, "deferred"), lt(m.deferredUntil, now - QUEUED_GRACE_MS), lt(m.updatedAt, now - QUEUED_GRACE_MS)))
          .limit(SWEEP_LIMIT),
      ),
    )
    .returning({ id: m.id });
  for (let i = 0; i < overdue.length; i += 100) {
    await env.DISPATCH.sendBatch(overdue.slice(i, i + 100).map((row) => ({ body: { kind: "dispatch", messageId: row.id } satisfies Job })));
  }

  // Receipts that never met their send (replies outside any campaign, or sends long settled).
  await db.delete(deliveryReceipts).where(lt(deliveryReceipts.receivedAt, now - RECEIPT_KEEP_MS));

  const sending = await db.select({ id: campaigns.id }).from(campaigns).where(eq(campaigns.status, "sending")).orderBy(asc(campaigns.id)).limit(SWEEP_LIMIT);
  for (const c of sending) await finishIfDone(db, c.id);

  if (stalled.length + abandoned.length > 0) {
    log.warn("sweep.recovered", { campaigns: stalled.length, messages: abandoned.length });
  }
}
