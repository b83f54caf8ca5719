import { eq } from "drizzle-orm";
import { enforceCallerLimits, limitFor } from "../auth/rate-limit";
import type { SessionUser } from "../context";
import type { Db } from "../db/client";
import { platformAccounts } from "../db/schema";
import { ApiError } from "../errors";
import { unwrap } from "../platform/connection";
import { cachedStations } from "../platform/driver-store";
import { engineOf } from "../platform/engine-client";
import { type DriverStation, driverStations, setDriverZone, zoneChoices } from "../platform/station-catalogue";

type Driver = Pick<SessionUser, "id" | "app" | "phone" | "accountConnected">;

/**
 * How long the stations the platform listed for a driver are answered from D1 before it is asked
 * again: a driver's eligible stations change rarely (a new warehouse, a move), and a new connection
 * clears the list at once.
 */
const STATIONS_CACHE_MS = 12 * 3_600_000;

/** Stations in the order the settings screen groups them; a platform lists a few hundred at most, and the bound keeps the answer small whatever it sends. */
function stationList(list: DriverStation[]) {
  return [...list].sort((a, b) => a.group.localeCompare(b.group) || a.name.localeCompare(b.name)).slice(0, 1000);
}

/** The stations answer: this driver's view of them, and the zones they may choose for one without. */
const stationsAnswer = (user: Driver, list: DriverStation[]) => ({ app: user.app, stations: stationList(list), zoneChoices: zoneChoices(user.phone) });

/**
 * The stations the platform lists for this driver, as they see them, and the zones they may choose
 * for one without: from what D1 keeps of the platform's last list while the cache allows, else
 * from the platform (through the driver's engine, limited per driver). 409 before connecting.
 */
export async function listedStations(db: Db, env: Pick<Env, "CAPTURE_SESSION">, user: Driver, now = Date.now()) {
  if (!user.accountConnected) throw new ApiError("conflict", "Connect your account first", { details: { reason: "not_connected" } });
  const cached = await cachedStations(db, user, STATIONS_CACHE_MS, now);
  if (cached) return stationsAnswer(user, cached);
  await enforceCallerLimits(db, [limitFor("platformStationsPerUser", String(user.id))]);
  const listed = unwrap(await engineOf(env, user.id).stations(user.id));
  const seen = await driverStations(
    db,
    user.id,
    user.app,
    user.phone,
    listed.map((s) => s.id),
  );
  return stationsAnswer(user, seen);
}

/** One station the platform listed for this driver, as they see it; 404 for any other. */
async function listedStation(db: Db, user: Pick<SessionUser, "id" | "app" | "phone">, id: string): Promise<DriverStation> {
  const account = await db.select({ stationIds: platformAccounts.stationIds }).from(platformAccounts).where(eq(platformAccounts.userId, user.id)).get();
  if (!account?.stationIds?.includes(id)) throw new ApiError("not_found", "No such station");
  const [station] = await driverStations(db, user.id, user.app, user.phone, [id]);
  if (!station) throw new ApiError("not_found", "No such station");
  return station;
}

/**
 * A driver's own zone for a station the platform listed for them (theirs alone; the shared
 * catalogue is unchanged), or back to the default (null); their engine reads it at once. Answers
 * the station as they now see it.
 */
export async function setStationZone(
  db: Db,
  env: Pick<Env, "CAPTURE_SESSION">,
  user: Pick<SessionUser, "id" | "app" | "phone">,
  id: string,
  timeZone: string | null,
  now = Date.now(),
) {
  await listedStation(db, user, id);
  await setDriverZone(db, user.id, user.app, id, timeZone, now);
  await engineOf(env, user.id).reload(user.id);
  return { station: await listedStation(db, user, id) };
}
