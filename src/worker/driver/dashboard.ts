import { eq } from "drizzle-orm";
import { z } from "zod";
import { pagingSchema } from "../cross-cutting/paging";
import type { Db } from "../db/client";
import { driverFilters } from "../db/schema";
import { historyOf } from "../platform/history-client";

/**
 * The driver's dashboard as data: the offers page, read from the driver's history (history-client.ts),
 * and the filters. The driver's own routes (routes/driver.ts) and the admin's view of a driver
 * (routes/admin-users.ts, "acting for") answer from these, so both see the same thing; the engine's
 * state and switch beside it are engine-view.ts.
 */

/** "I've arrived" is offered from this long before a block starts until it ends. */
const CHECK_IN_OPENS_MS = 60 * 60_000;

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
    rows: rows.map((r) => ({
      id: r.id,
      status: r.status,
      stationId: r.stationId,
      stationName: r.stationName,
      timeZone: r.timeZone,
      startsAt: r.startsAt,
      endsAt: r.endsAt,
      payCents: r.payCents,
      reasons: r.reasons,
      seenAt: r.seenAt,
      forfeitedAt: r.forfeitedAt,
      // A forfeit asked during the platform's lockout: when it was asked (it is sent when the lockout ends).
      forfeitQueuedAt: r.forfeitQueuedAt,
      arrivedAt: r.arrivedAt,
      canCheckIn: r.status === "won" && !r.forfeitedAt && !r.arrivedAt && now >= r.startsAt - CHECK_IN_OPENS_MS && now < r.endsAt,
      canForfeit: r.status === "won" && !r.forfeitedAt && r.startsAt > now,
      // A won block gets the id a forfeit names from the platform's schedule: until then it cannot be forfeited yet.
      forfeitable: r.status === "won" && r.blockId !== null,
      checkInAvailable: r.status === "won" && checkInAvailable,
    })),
  };
}
