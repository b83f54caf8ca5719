/**
 * The cron's net under the notify jobs (src/worker/scheduled.ts): a row still queued well past when
 * it was due (its job was never queued, or was lost), or claimed with a lease that lapsed (the
 * consumer died mid-send), goes back to queued with a new job. A bounded batch per run.
 */
import { and, eq, inArray, isNull, lt, or, type SQL } from "drizzle-orm";
import { dbFor } from "../db/client";
import { driverNotifications } from "../db/schema";
import type { Logger } from "../log";
import { queueNotifications } from "./notify";

/** Rows one run queues again at most (their ids and the conditions stay within D1's 100 bound parameters). */
export const SWEEP_BATCH = 50;

export async function requeueStalledNotifications(env: Pick<Env, "DB" | "DISPATCH" | "REQUEUE_AFTER_SECONDS">, log: Logger, now: number): Promise<number> {
  const db = dbFor(env.DB);
  const overdue = now - Number(env.REQUEUE_AFTER_SECONDS) * 1000;
  const n = driverNotifications;
  // Queued: due at lease_until (a retry's delay) or, with none, when last written.
  const stalled: SQL = or(
    and(eq(n.status, "queued"), or(and(isNull(n.leaseUntil), lt(n.updatedAt, overdue)), lt(n.leaseUntil, overdue))),
    and(eq(n.status, "sending"), lt(n.leaseUntil, now)),
  )!;
  const candidates = await db.select({ id: n.id }).from(n).where(stalled).orderBy(n.updatedAt).limit(SWEEP_BATCH);
  if (candidates.length === 0) return 0;
  const requeued = await db
    .update(n)
    .set({ status: "queued", leaseUntil: null, updatedAt: now })
    .where(
      and(
        inArray(
          n.id,
          candidates.map((c) => c.id),
        ),
        stalled,
      ),
    )
    .returning({ id: n.id });
  await queueNotifications(
    env,
    requeued.map((r) => r.id),
    log,
  );
  if (requeued.length > 0) log.warn("notification.requeued", { count: requeued.length });
  return requeued.length;
}
