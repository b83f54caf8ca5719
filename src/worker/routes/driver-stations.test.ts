/**
 * Stations as the driver sees them (docs/engine.md, "Stations"), through the API against the fake
 * platform: the platform's names without their suffix, codes, groups and zones from the station
 * table, the driver's area code, or the driver's own correction; none dropped; a station without a
 * zone cannot be chosen until the driver gives it one, and a correction is that driver's alone.
 */
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { stations } from "../db/schema";
import { defaultWorld } from "../test/connected-driver";
import { connectThroughPage } from "../test/fake-platform-world";
import { call, db, json, seedUser, signIn } from "../test/fixtures";

let n = 0;
const tag = () => `${Date.now().toString(36)}${(n++).toString(36)}${Math.random().toString(36).slice(2, 5)}`.toUpperCase();
const phoneIn = (area: string) => `+1${area}${String(2_000_000 + Math.floor(Math.random() * 7_999_999)).padStart(7, "0")}`;

/** A Flex driver connected through the page, eligible for stations of its own named as given. */
async function driverWithStations(names: string[], area: string) {
  const t = tag();
  const list = names.map((name, i) => ({ serviceAreaId: `S${t}-${i}`, name }));
  const world = defaultWorld();
  await world.control("stations", { app: "flex", stations: list });
  const email = `stations-${t.toLowerCase()}@example.com`;
  await world.control("accounts", { email, password: "pw", stations: list.map((s) => s.serviceAreaId), offersRate: null });
  const user = await seedUser({ app: "flex", phone: phoneIn(area), expirationAt: Date.now() + 7 * 86_400_000, goodStanding: true });
  const { idToken } = await signIn(user);
  expect(await connectThroughPage(idToken, email)).toEqual({ status: "connected" });
  return { user, token: idToken, ids: list.map((s) => s.serviceAreaId) };
}

type Station = { id: string; name: string; code: string | null; group: string; timeZone: string | null; zoneSource: string | null };
const stationsOf = async (token: string) => json<{ app: string; stations: Station[]; zoneChoices: string[] }>(await call("/api/driver/stations", { token }));
const filtersWith = (id: string) => ({
  stations: [{ id }],
  minPayCents: 0,
  minHourlyCents: 0,
  arrivalBufferMinutes: 30,
  minDurationMinutes: 0,
  maxDurationMinutes: 0,
  schedule: { mon: [{ start: "08:00", end: "14:00" }] },
  dailyCapMinutes: 0,
});

describe("stations the driver recognises", () => {
  it("names them as the platform does, with the code, the table's city and zone, or the driver's own zone; drops none", async () => {
    // 305: Miami, one zone.
    const d = await driverWithStations(["Doral (DMI4) - Amazon.com", "Springfield (XQZ1) - Amazon.com", "Warehouse Twelve"], "305");
    const body = await stationsOf(d.token);
    const byId = new Map(body.stations.map((s) => [s.id, s]));
    expect(body.stations).toHaveLength(3);
    expect(byId.get(d.ids[0]!)).toEqual({
      id: d.ids[0],
      name: "Doral (DMI4)",
      code: "DMI4",
      group: "Miami, FL",
      timeZone: "America/New_York",
      zoneSource: "catalogue",
    });
    // Not in the table: the driver's own zone (their area code gives exactly one), grouped by it.
    expect(byId.get(d.ids[1]!)).toMatchObject({
      name: "Springfield (XQZ1)",
      code: "XQZ1",
      timeZone: "America/New_York",
      zoneSource: "driver_area",
      group: "New York time",
    });
    expect(byId.get(d.ids[2]!)).toMatchObject({ name: "Warehouse Twelve", code: null, zoneSource: "driver_area" });
    // Their area's zone first, then every US and Canada one: a catalogued station in the wrong zone can be corrected to any.
    expect(body.zoneChoices[0]).toBe("America/New_York");
    expect(body.zoneChoices).toEqual(expect.arrayContaining(["America/Chicago", "America/Los_Angeles", "America/Vancouver", "Pacific/Honolulu"]));
    expect(new Set(body.zoneChoices).size).toBe(body.zoneChoices.length);
  });

  it("a station no zone is known for must be given one before it is chosen; the correction is the driver's own", async () => {
    // 850: the Florida panhandle, Eastern and Central.
    const d = await driverWithStations(["Pensacola (XPN1) - Amazon.com"], "850");
    const id = d.ids[0]!;
    const body = await stationsOf(d.token);
    expect(body.stations[0]).toMatchObject({ id, timeZone: null, zoneSource: null, group: "Other" });
    expect(body.zoneChoices.slice(0, 2)).toEqual(["America/New_York", "America/Chicago"]);

    const refused = await call("/api/driver/filters", { token: d.token, method: "PUT", body: filtersWith(id) });
    expect(refused.status).toBe(400);
    expect((await json(refused)).error.details).toEqual([{ path: "stations", message: "zone_needed" }]);

    const bad = await call(`/api/driver/stations/${id}/time-zone`, { token: d.token, method: "PUT", body: { timeZone: "Europe/Paris" } });
    expect(bad.status).toBe(400);
    const set = await call(`/api/driver/stations/${id}/time-zone`, { token: d.token, method: "PUT", body: { timeZone: "America/Chicago" } });
    expect(set.status).toBe(200);
    expect((await json(set)).station).toMatchObject({ id, timeZone: "America/Chicago", zoneSource: "driver", group: "Chicago time" });
    expect((await call("/api/driver/filters", { token: d.token, method: "PUT", body: filtersWith(id) })).status).toBe(200);
    // The calendar reads the stations in the driver's zone too.
    const week = new Date().toISOString().slice(0, 10);
    expect((await json(await call(`/api/driver/calendar?week=${week}`, { token: d.token }))).stations).toMatchObject([{ id, timeZone: "America/Chicago" }]);

    // The shared catalogue is unchanged, and another driver listed the same station still sees none.
    const row = await db
      .select()
      .from(stations)
      .where(and(eq(stations.app, "flex"), eq(stations.id, id)))
      .get();
    expect(row).toMatchObject({ name: "Pensacola (XPN1)", timeZone: null });
    const other = await seedUser({ app: "flex", phone: phoneIn("850") });
    const { idToken } = await signIn(other);
    const email = `stations-other-${tag().toLowerCase()}@example.com`;
    await defaultWorld().control("accounts", { email, password: "pw", stations: [id], offersRate: null });
    await connectThroughPage(idToken, email);
    expect((await stationsOf(idToken)).stations[0]).toMatchObject({ id, timeZone: null, zoneSource: null });

    // Back to the default.
    const cleared = await call(`/api/driver/stations/${id}/time-zone`, { token: d.token, method: "DELETE" });
    expect((await json(cleared)).station).toMatchObject({ id, timeZone: null, zoneSource: null });
  });

  it("a correction of a station the platform did not list for this driver is a 404", async () => {
    const d = await driverWithStations(["Doral (DMI4) - Amazon.com"], "305");
    const e = await driverWithStations(["Tampa (DTP9) - Amazon.com"], "813");
    await stationsOf(d.token);
    expect((await call(`/api/driver/stations/${e.ids[0]}/time-zone`, { token: d.token, method: "PUT", body: { timeZone: "America/Chicago" } })).status).toBe(
      404,
    );
    expect((await call(`/api/driver/stations/${e.ids[0]}/time-zone`, { token: d.token, method: "DELETE" })).status).toBe(404);
    // The driver's own catalogue station takes a correction over the table's zone.
    const own = await call(`/api/driver/stations/${d.ids[0]}/time-zone`, { token: d.token, method: "PUT", body: { timeZone: "America/Chicago" } });
    expect((await json(own)).station).toMatchObject({ code: "DMI4", timeZone: "America/Chicago", zoneSource: "driver", group: "Miami, FL" });
  });
});
