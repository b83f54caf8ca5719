import { eq } from "drizzle-orm";
import type { DriverFilters } from "../../shared/driver-filters";
import type { SessionUser } from "../context";
import type { Db } from "../db/client";
import { driverFilters, users } from "../db/schema";
import { ApiError } from "../errors";
import { engineOf } from "../platform/engine-client";
import { driverStations } from "../platform/station-catalogue";

/**
 * A driver's filters saved, and their setup marked complete, in one batch. Every station must be
 * one the platform listed for this driver's app, with a zone this driver's filters can be read in
 * (a validation failure naming `stations` otherwise, and nothing is written). The driver's engine
 * reads them at once.
 */
export async function saveFilters(
  db: Db,
  env: Pick<Env, "CAPTURE_SESSION">,
  user: Pick<SessionUser, "id" | "app" | "phone">,
  filters: DriverFilters,
  now = Date.now(),
): Promise<void> {
  const ids = filters.stations.map((s) => s.id);
  const known = await driverStations(db, user.id, user.app, user.phone, ids);
  if (known.length !== new Set(ids).size)
    throw new ApiError("validation_failed", "stations: unknown_station", { details: [{ path: "stations", message: "unknown_station" }] });
  if (known.some((s) => s.timeZone === null))
    throw new ApiError("validation_failed", "stations: zone_needed", { details: [{ path: "stations", message: "zone_needed" }] });
  await db.batch([
    db
      .insert(driverFilters)
      .values({ userId: user.id, ...filters, updatedAt: now })
      .onConflictDoUpdate({ target: driverFilters.userId, set: { ...filters, updatedAt: now } }),
    db.update(users).set({ setupComplete: true }).where(eq(users.id, user.id)),
  ]);
  await engineOf(env, user.id).reload(user.id);
}
