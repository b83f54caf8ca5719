import { eq } from "drizzle-orm";
import { z } from "zod";
import { pagingSchema } from "../cross-cutting/paging";
import type { Db } from "../db/client";
import { driverFilters } from "../db/schema";
import { offerRowOf } from "../platform/dashboard-view";
import { historyOf } from "../platform/history-client";

/**
 * The driver's dashboard as data: the offers page, read from the driver's history (history-client.ts),
 * and the filters. The driver's own routes (routes/driver.ts) and the admin's view of a driver
 * (routes/admin-users.ts, "acting for") answer from these, so both see the same thing; the engine's
 * state and switch beside it are engine-view.ts.
 */

export const offersQuerySchema = pagingSchema.extend({ status: z.enum(["won", "disliked", "gone"]).optional() });

export async function readFilters(db: Db, userId: number) {
  const row = await db.select().from(driverFilters).where(eq(driverFilters.userId, userId)).get();
  if (!row) return null;
  const { userId: _user, updatedAt: _updated, ...filters } = row;
  return filters;
}

/**
 * Every offer the engine saw, newest first, a page at a time, with the counts per status and the
 * filters that judged them: read from the driver's own history, in their capture engine's object.
 */
export async function offersPage(
  env: Pick<Env, "CAPTURE_SESSION" | "PLATFORM_CHECK_IN">,
  userId: number,
  query: z.infer<typeof offersQuerySchema>,
  now = Date.now(),
) {
  // "I've arrived" has no public call: offered only where the modelled one is configured (docs/engine.md).
  const checkInAvailable = env.PLATFORM_CHECK_IN === "modelled";
  const { page, pageSize, status } = query;
  const { counts: byStatus, rows, filters } = await historyOf(env, userId).offersPage(userId, { page, pageSize, status });
  return {
    total: status ? byStatus[status] : byStatus.won + byStatus.disliked + byStatus.gone,
    page,
    pageSize,
    counts: byStatus,
    filters,
    rows: rows.map((r) => offerRowOf(r, now, checkInAvailable)),
  };
}
