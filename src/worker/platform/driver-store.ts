/**
 * What the capture engine and the driver routes read and write in D1: the driver's connection
 * (sealed tokens), filters and the station catalogue. Offers live in each driver's own history
 * (offer-history.ts); D1 keeps the won blocks.
 */
import { and, eq, sql } from "drizzle-orm";
import type { SkipReason } from "../../shared/accept-plan";
import type { DriverFilters } from "../../shared/driver-filters";
import { openSecret, sealSecret } from "../auth/secret-box";
import { type Db, excluded } from "../db/client";
import { driverFilters, platformAccounts, stations, users } from "../db/schema";
import type { PlatformAccount, PlatformStation, PlatformTokens } from "./platform";
import { catalogueRow, type DriverStation, driverStations } from "./station-catalogue";

export type App = "flex" | "spark";
/** An offer as the engine records it in the driver's history (offer-history.ts); D1 keeps the won ones. */
export type OfferRecord = {
  userId: number;
  app: App;
  platformOfferId: string;
  stationId: string;
  stationName: string;
  timeZone: string;
  status: "won" | "disliked" | "gone";
  reasons?: SkipReason[] | null;
  payCents: number;
  startsAt: number;
  endsAt: number;
  blockId?: string | null;
  forfeitedAt?: number | null;
  arrivedAt?: number | null;
  seenAt: number;
};
/** A chosen station as the engine judges it: its name and this driver's zone for it. */
export type StationInfo = { id: string; name: string; timeZone: string };

/** Everything the engine decides with, read in one round trip. */
export type DriverProfile = {
  user: Pick<
    typeof users.$inferSelect,
    "id" | "app" | "phone" | "language" | "expirationAt" | "goodStanding" | "accountConnected" | "setupComplete" | "status" | "smsOptOut"
  >;
  account: { accountName: string; sealedTokens: string | null } | null;
  filters: DriverFilters | null;
  stations: Map<string, StationInfo>;
};

export async function loadDriverProfile(db: Db, userId: number): Promise<DriverProfile | null> {
  const [userRows, accountRows, filterRows] = await db.batch([
    db
      .select({
        id: users.id,
        app: users.app,
        phone: users.phone,
        language: users.language,
        expirationAt: users.expirationAt,
        goodStanding: users.goodStanding,
        accountConnected: users.accountConnected,
        setupComplete: users.setupComplete,
        status: users.status,
        smsOptOut: users.smsOptOut,
      })
      .from(users)
      .where(eq(users.id, userId))
      .limit(1),
    db
      .select({ accountName: platformAccounts.accountName, sealedTokens: platformAccounts.sealedTokens })
      .from(platformAccounts)
      .where(eq(platformAccounts.userId, userId))
      .limit(1),
    db.select().from(driverFilters).where(eq(driverFilters.userId, userId)).limit(1),
  ]);
  const user = userRows[0];
  if (!user) return null;
  const f = filterRows[0];
  const filters: DriverFilters | null = f
    ? {
        stations: f.stations,
        minPayCents: f.minPayCents,
        minHourlyCents: f.minHourlyCents,
        arrivalBufferMinutes: f.arrivalBufferMinutes,
        minDurationMinutes: f.minDurationMinutes,
        maxDurationMinutes: f.maxDurationMinutes,
        schedule: f.schedule,
        dailyCapMinutes: f.dailyCapMinutes,
      }
    : null;
  const stationMap = new Map<string, StationInfo>();
  if (filters && filters.stations.length > 0) {
    const list = await driverStations(
      db,
      user.id,
      user.app,
      user.phone,
      filters.stations.map((s) => s.id),
    );
    // A station without a zone cannot be chosen (routes/driver.ts); one that lost it is judged as unknown.
    for (const s of list) if (s.timeZone) stationMap.set(s.id, { id: s.id, name: s.name, timeZone: s.timeZone });
  }
  return { user, account: accountRows[0] ?? null, filters, stations: stationMap };
}

export async function openTokens(sealed: string, key: string): Promise<PlatformTokens> {
  return JSON.parse(await openSecret(sealed, key)) as PlatformTokens;
}

export function sealTokens(tokens: PlatformTokens, key: string): Promise<string> {
  return sealSecret(JSON.stringify(tokens), key);
}

/** A new or renewed connection: tokens (with the device) sealed, the user marked connected (proxyInstalled in docs/product.md). */
export async function saveConnection(db: Db, key: string, userId: number, app: App, account: PlatformAccount, tokens: PlatformTokens, now: number) {
  const sealed = await sealTokens(tokens, key);
  const who = { customerId: account.customerId, accountName: account.name };
  await db.batch([
    db
      .insert(platformAccounts)
      .values({ userId, app, ...who, sealedTokens: sealed, connectedAt: now, updatedAt: now })
      .onConflictDoUpdate({
        target: platformAccounts.userId,
        // Another account (or app) may be eligible for other stations: the cached list goes.
        set: {
          app,
          ...who,
          sealedTokens: sealed,
          connectedAt: now,
          disconnectedAt: null,
          disconnectReason: null,
          stationIds: null,
          stationsFetchedAt: null,
          updatedAt: now,
        },
      }),
    db.update(users).set({ accountConnected: true }).where(eq(users.id, userId)),
  ]);
}

/** Refreshed tokens replace the stored ones (only while still connected: a disconnect wins). */
export async function saveTokens(db: Db, key: string, userId: number, tokens: PlatformTokens, now: number) {
  const sealed = await sealTokens(tokens, key);
  await db
    .update(platformAccounts)
    .set({ sealedTokens: sealed, updatedAt: now })
    .where(and(eq(platformAccounts.userId, userId), sql`${platformAccounts.sealedTokens} IS NOT NULL`));
}

/** The connection ends: tokens dropped, the user disconnected and the system off. */
export async function endConnection(db: Db, userId: number, reason: "driver" | "refused", now: number) {
  await db.batch([
    db
      .update(platformAccounts)
      .set({ sealedTokens: null, disconnectedAt: now, disconnectReason: reason, updatedAt: now })
      .where(eq(platformAccounts.userId, userId)),
    db.update(users).set({ accountConnected: false, status: "stop" }).where(eq(users.id, userId)),
  ]);
}

export async function setSystemStatus(db: Db, userId: number, status: "start" | "stop") {
  await db.update(users).set({ status }).where(eq(users.id, userId));
}

/** Upserts the stations the platform listed, with what the catalogue knows of them (station-catalogue.ts). */
export async function saveStations(db: Db, app: App, list: PlatformStation[], now: number) {
  // 6 bound parameters a row: 16 rows stay under D1's 100 per statement.
  const chunks: PlatformStation[][] = [];
  for (let i = 0; i < list.length; i += 16) chunks.push(list.slice(i, i + 16));
  const statements = chunks.map((chunk) =>
    db
      .insert(stations)
      .values(chunk.map((s) => catalogueRow(app, s, now)))
      .onConflictDoUpdate({
        target: [stations.app, stations.id],
        set: { name: excluded(stations.name), city: excluded(stations.city), timeZone: excluded(stations.timeZone), updatedAt: now },
      }),
  );
  if (statements.length > 0) await db.batch(statements as [(typeof statements)[number], ...(typeof statements)[number][]]);
}

/**
 * The stations the platform listed for this driver's account: the catalogue rows upserted, and the
 * account's own list kept with the time it was read (the stations route answers from it for a while).
 */
export async function saveEligibleStations(db: Db, userId: number, app: App, list: PlatformStation[], now: number) {
  await saveStations(db, app, list, now);
  await db
    .update(platformAccounts)
    .set({ stationIds: list.map((s) => s.id), stationsFetchedAt: now })
    .where(and(eq(platformAccounts.userId, userId), eq(platformAccounts.app, app)));
}

/**
 * The driver's stations as the platform listed them less than `maxAgeMs` ago, as this driver sees
 * them; null when there is no such list (never read, read for another connection, or too old).
 */
export async function cachedStations(
  db: Db,
  user: { id: number; app: App; phone: string | null },
  maxAgeMs: number,
  now: number,
): Promise<DriverStation[] | null> {
  const account = await db
    .select({ app: platformAccounts.app, stationIds: platformAccounts.stationIds, fetchedAt: platformAccounts.stationsFetchedAt })
    .from(platformAccounts)
    .where(eq(platformAccounts.userId, user.id))
    .get();
  if (!account || account.app !== user.app || !account.stationIds || account.fetchedAt === null || now - account.fetchedAt >= maxAgeMs) return null;
  return driverStations(db, user.id, user.app, user.phone, account.stationIds);
}
