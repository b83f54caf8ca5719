/**
 * Test-only: a driver connected to the fake platform's default world (the one the Worker's
 * settings point at), with stations of their own so tests sharing that world never see each
 * other's offers, filters saved and service paid.
 */
import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import type { DriverFilters } from "../../shared/driver-filters";
import { driverFilters, users } from "../db/schema";
import { saveConnection, saveStations } from "../platform/driver-store";
import { codeChallenge, newCodeVerifier, newDeviceSerial, newInstanceId, readLanding, signInUrl } from "../platform/flex-sign-in";
import { flexPlatform, sparkPlatform } from "../platform/http-platform";
import type { PlatformAccount, PlatformTokens } from "../platform/platform";
import { recordInHistory } from "./engine-fixtures";
import { type Fault, landingAfterSignIn, worldAt } from "./fake-platform-world";
import { db, seedUser } from "./fixtures";

let drivers = 0;

export type TestDriverOptions = {
  app?: "flex" | "spark";
  /** Zones of the driver's own stations, one station each. */
  zones?: string[];
  filters?: Partial<DriverFilters>;
  user?: Parameters<typeof seedUser>[0];
  offersRate?: number | null;
  offersBurst?: number;
  /** The fake's limit on every capacity call of the account (test/fake-platform/limit-models.ts), and its lockout. */
  limitModel?: "burst" | "minute" | "hour" | "generous";
  lockoutMs?: number;
  faults?: Fault[];
  connect?: boolean;
};

const anyTime = () => [
  { start: "00:00", end: "00:00" },
  { start: "12:00", end: "12:00" },
];

export const defaultWorld = () => worldAt(env.FAKE_PLATFORM_URL);

/** Station codes whose area the station table puts in a zone (station-zones.ts): a test station named with one gets that zone. */
const PREFIX_OF_ZONE: Record<string, string> = {
  "America/New_York": "DNY",
  "America/Los_Angeles": "DLA",
  "America/Denver": "DDV",
  "America/Chicago": "DCH",
  "America/Phoenix": "DPX",
  "America/Toronto": "DYY",
};

/**
 * Connects an account of the fake platform's default world as the product does: Flex through its
 * sign-in page and a device registration (the device sealed with the tokens), Spark with its
 * modelled email-and-password sign-in.
 */
export async function platformConnection(app: "flex" | "spark", email: string, password = "pw"): Promise<{ account: PlatformAccount; tokens: PlatformTokens }> {
  if (app === "spark") {
    const step = await sparkPlatform(env).signIn(email, password);
    if (step.kind !== "tokens") throw new Error("expected tokens");
    return { account: { customerId: email, name: email }, tokens: step.tokens };
  }
  const verifier = newCodeVerifier();
  const serial = newDeviceSerial();
  const landing = readLanding(
    env.FLEX_SIGN_IN_BASE,
    await landingAfterSignIn(signInUrl(env.FLEX_SIGN_IN_BASE, await codeChallenge(verifier), serial, "en"), email, password),
  );
  if (!landing.ok) throw new Error(`no code on the landing page: ${landing.reason}`);
  const { account, tokens } = await flexPlatform(env).register(landing.code, verifier, serial);
  return { account, tokens: { ...tokens, device: { serial, instanceId: newInstanceId() } } };
}

export async function connectedDriver(options: TestDriverOptions = {}) {
  const app = options.app ?? "flex";
  const tag = `${Date.now().toString(36)}${(drivers++).toString(36)}${Math.random().toString(36).slice(2, 6)}`.toUpperCase();
  const zones = options.zones ?? ["America/New_York"];
  // Flex names its stations with a code ("Test … (DNY0)"), whose area gives the zone; Spark's modelled areas carry theirs.
  const stations = zones.map((timeZone, i) =>
    app === "flex" && PREFIX_OF_ZONE[timeZone]
      ? {
          serviceAreaId: `T${tag}-${i}`,
          name: `Test ${tag} ${i} (${PREFIX_OF_ZONE[timeZone]}${i % 10}) - Amazon.com`,
          region: null,
          timeZone: null,
          zone: timeZone,
        }
      : { serviceAreaId: `T${tag}-${i}`, name: `Test ${tag} ${i}`, region: `Region ${tag}`, timeZone, zone: timeZone },
  );
  const world = defaultWorld();
  await world.control("stations", { app, stations });
  const email = `driver-${tag.toLowerCase()}@example.com`;
  const {
    driverId,
    customerId,
    name: accountName,
  } = (await world.control("accounts", {
    email,
    password: "pw",
    stations: stations.map((s) => s.serviceAreaId),
    offersRate: options.offersRate === undefined ? null : options.offersRate,
    ...(options.offersBurst !== undefined ? { offersBurst: options.offersBurst } : {}),
    ...(options.limitModel ? { limitModel: options.limitModel } : {}),
    ...(options.lockoutMs ? { lockoutMs: options.lockoutMs } : {}),
    faults: options.faults ?? [],
  })) as { driverId: string; customerId: string; name: string };
  const user = await seedUser({
    app,
    expirationAt: Date.now() + 7 * 86_400_000,
    goodStanding: true,
    setupComplete: true,
    language: "en",
    ...options.user,
  });
  const now = Date.now();
  if (options.connect !== false) {
    const { account, tokens } = await platformConnection(app, email);
    await saveConnection(db, env.MFA_ENCRYPTION_KEY, user.id, app, account, tokens, now);
  }
  await saveStations(
    db,
    app,
    stations.map((s) => ({ id: s.serviceAreaId, name: s.timeZone ? s.name : s.name.replace(/ - Amazon\.com$/, ""), group: s.region, timeZone: s.timeZone })),
    now,
  );
  const filters: DriverFilters = {
    stations: stations.map((s) => ({ id: s.serviceAreaId })),
    minPayCents: 0,
    minHourlyCents: 0,
    arrivalBufferMinutes: 0,
    minDurationMinutes: 0,
    maxDurationMinutes: 0,
    // Every day, two windows: 00:00–00:00 and 12:00–12:00 (noon to noon). A block belongs to the day it
    // starts on, so one whole-day window refuses a block that runs past midnight; with the second one
    // any block of up to 12 hours is taken whatever the time of day the test runs at.
    schedule: {
      mon: anyTime(),
      tue: anyTime(),
      wed: anyTime(),
      thu: anyTime(),
      fri: anyTime(),
      sat: anyTime(),
      sun: anyTime(),
    },
    dailyCapMinutes: 0,
    ...options.filters,
  };
  await db.insert(driverFilters).values({ userId: user.id, ...filters });
  const row = await db.select().from(users).where(eq(users.id, user.id)).get();
  return {
    user: { ...user, ...row! },
    email,
    driverId,
    // What platform_accounts names the account by: Flex's registration gives the fake's customer id and name; Spark's modelled sign-in the email.
    customerId: app === "flex" ? customerId : email,
    accountName: app === "flex" ? accountName : email,
    stations: stations.map((s) => s.serviceAreaId),
    world,
    app,
  };
}

type TestDriver = Awaited<ReturnType<typeof connectedDriver>>;

/**
 * A block the driver won, recorded in their history as the engine records one (and copied to D1's
 * won blocks): at the driver's first station, one hour from `startsAt` unless told.
 */
export async function recordWonBlock(
  d: TestDriver,
  block: { platformOfferId: string; startsAt: number; blockId: string | null; endsAt?: number; payCents?: number; timeZone?: string; seenAt?: number },
): Promise<void> {
  await recordInHistory(d.user.id, [
    {
      app: d.app,
      stationId: d.stations[0]!,
      stationName: "Test station",
      status: "won",
      platformOfferId: block.platformOfferId,
      timeZone: block.timeZone ?? "America/New_York",
      payCents: block.payCents ?? 5000,
      startsAt: block.startsAt,
      endsAt: block.endsAt ?? block.startsAt + 3_600_000,
      blockId: block.blockId,
      seenAt: block.seenAt ?? Date.now(),
    },
  ]);
}
