/**
 * Stations as drivers see them (docs/engine.md, "Stations"): the platform's name without its
 * " - Amazon.com" suffix, the station code in it, its city and zone from the repo's table
 * (station-zones.ts), and each driver's own zone: their correction first, else the catalogue's,
 * else the zone their phone's area code gives when it gives exactly one, else none (the driver
 * chooses among `zoneChoices`). No station is ever dropped for want of a zone.
 */
import { and, eq, inArray } from "drizzle-orm";
import { KNOWN_AREA_CODES, locationOf, locationOfAreaCode } from "../compliance/area-codes";
import { type Db, jsonList } from "../db/client";
import { driverStationZones, stations } from "../db/schema";
import type { PlatformStation } from "./platform";
import { NORTH_AMERICAN_ZONES, stationArea, stationCode } from "./station-zones";

export type App = "flex" | "spark";
export type ZoneSource = "catalogue" | "driver_area" | "driver";
export type DriverStation = { id: string; name: string; code: string | null; group: string; timeZone: string | null; zoneSource: ZoneSource | null };

/** A catalogue row for a listed station: the platform's own city and zone (Spark), else the table's by its code (Flex). */
export function catalogueRow(app: App, s: PlatformStation, now: number): typeof stations.$inferInsert {
  const area = stationArea(stationCode(s.name));
  return { app, id: s.id, name: s.name, city: s.group ?? area?.city ?? null, timeZone: s.timeZone ?? area?.timeZone ?? null, updatedAt: now };
}

/** A zone's label for grouping when no city is known: "America/New_York" → "New York time". */
function zoneLabel(zone: string): string {
  return `${(zone.split("/").pop() ?? zone).replace(/_/g, " ")} time`;
}

/** The zones a driver's phone number gives (none for an unknown area code). */
export function driverZones(phone: string | null | undefined): string[] {
  const location = phone ? locationOf(phone) : null;
  return location?.region ? [...location.zones] : [];
}

/**
 * What the driver may choose for a station's zone: their area code's zones first (the likely
 * answer when a station has none), then every other US and Canada one, so a station the catalogue
 * puts in the wrong zone can be corrected to any.
 */
export function zoneChoices(phone: string | null | undefined): string[] {
  return [...new Set([...driverZones(phone), ...NORTH_AMERICAN_ZONES])];
}

let choosable: Set<string> | null = null;
/** A zone a driver may give a station: the US and Canada list, or one an area code gives. */
export function isChoosableZone(zone: string): boolean {
  choosable ??= new Set([...NORTH_AMERICAN_ZONES, ...KNOWN_AREA_CODES.flatMap((code) => locationOfAreaCode(code).zones)]);
  return choosable.has(zone);
}

type CatalogueRow = { id: string; name: string; city: string | null; timeZone: string | null };

/** One station as this driver sees it. */
export function driverStation(row: CatalogueRow, own: string | undefined, areaZonesOfDriver: readonly string[]): DriverStation {
  const code = stationCode(row.name);
  const fromArea = areaZonesOfDriver.length === 1 ? areaZonesOfDriver[0]! : null;
  const [timeZone, zoneSource]: [string | null, ZoneSource | null] = own
    ? [own, "driver"]
    : row.timeZone
      ? [row.timeZone, "catalogue"]
      : fromArea
        ? [fromArea, "driver_area"]
        : [null, null];
  const group = row.city ?? (timeZone ? zoneLabel(timeZone) : "Other");
  return { id: row.id, name: row.name, code, group, timeZone, zoneSource };
}

/** The stations `ids` of `app` as driver `userId` (whose number is `phone`) sees them, in the order given; unknown ids are left out. */
export async function driverStations(db: Db, userId: number, app: App, phone: string | null, ids: readonly string[]): Promise<DriverStation[]> {
  if (ids.length === 0) return [];
  const [rows, own] = await db.batch([
    db
      .select({ id: stations.id, name: stations.name, city: stations.city, timeZone: stations.timeZone })
      .from(stations)
      .where(and(eq(stations.app, app), inArray(stations.id, jsonList([...ids])))),
    db
      .select({ stationId: driverStationZones.stationId, timeZone: driverStationZones.timeZone })
      .from(driverStationZones)
      .where(and(eq(driverStationZones.userId, userId), eq(driverStationZones.app, app))),
  ]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const corrections = new Map(own.map((o) => [o.stationId, o.timeZone]));
  const zones = driverZones(phone);
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [driverStation(row, corrections.get(id), zones)] : [];
  });
}

/** A driver's own zone for a station (null: back to the default). */
export async function setDriverZone(db: Db, userId: number, app: App, stationId: string, timeZone: string | null, now: number) {
  if (timeZone === null) {
    await db
      .delete(driverStationZones)
      .where(and(eq(driverStationZones.userId, userId), eq(driverStationZones.app, app), eq(driverStationZones.stationId, stationId)));
    return;
  }
  await db
    .insert(driverStationZones)
    .values({ userId, app, stationId, timeZone, updatedAt: now })
    .onConflictDoUpdate({ target: [driverStationZones.userId, driverStationZones.app, driverStationZones.stationId], set: { timeZone, updatedAt: now } });
}
