/**
 * Test-only: starting a driver's capture engine in a test file and watching what it records (the
 * engine runs its real alarm loop against the fake platform, a 300 ms interval in tests); and, for
 * the engine's parts on their own, a driver's profile and a storage in memory.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, vi } from "vitest";
import type { DriverFilters } from "../../shared/driver-filters";
import { offers } from "../db/schema";
import { captureSessionOf } from "../platform/capture";
import type { DriverProfile, OfferRecord } from "../platform/driver-store";
import { OfferHistory } from "../platform/offer-history";
import { db } from "./fixtures";
import { settleNotifications } from "./push-fixtures";

export const HOUR = 3_600_000;

/**
 * A start for one test file's engines; each is stopped after its test, so no engine keeps polling
 * into the next, and what it notified its driver of has gone out. Call it at the file's top level.
 */
export function engineStarter() {
  const started: number[] = [];
  afterEach(async () => {
    const ids = started.splice(0);
    for (const id of ids) await captureSessionOf(env, id).stop(id);
    await settleNotifications(ids);
  });
  return async (userId: number) => {
    started.push(userId);
    return captureSessionOf(env, userId).start(userId);
  };
}

/** The offers a driver's engine recorded in its history, in the order recorded. */
export const recordsOf = async (userId: number) => (await captureSessionOf(env, userId).offersSeenSince(userId, 0, 10_000)).sort((a, b) => a.id - b.id);

/**
 * Offers recorded in a driver's history as the engine records them (offer-history.ts `record`, in
 * the driver's own object), the won ones then copied to D1 as the engine copies them after a poll.
 */
export async function recordInHistory(userId: number, records: Omit<OfferRecord, "userId">[]): Promise<void> {
  await runInDurableObject(captureSessionOf(env, userId), async (_object, state) => {
    const history = new OfferHistory(state.storage.sql, state.storage.kv);
    for (const r of records) history.record({ userId, ...r });
    await history.shareWon(db, userId, Date.now());
  });
}

/** The won blocks D1 holds for a driver (copied there from the history). */
export const wonBlocksInD1 = (userId: number) => db.select().from(offers).where(eq(offers.userId, userId)).orderBy(offers.id).all();

export async function waitForRecords(userId: number, count: number, timeout = 5000) {
  return vi.waitFor(
    async () => {
      const rows = await recordsOf(userId);
      if (rows.length < count) throw new Error(`${rows.length} of ${count} records`);
      return rows;
    },
    { timeout, interval: 50 },
  );
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A whole minute about `hours` from now. */
export const soon = (hours: number) => Math.ceil((Date.now() + hours * HOUR) / 60_000) * 60_000;

export const testFilters = (stations: string[]): DriverFilters => ({
  stations: stations.map((id) => ({ id })),
  minPayCents: 0,
  minHourlyCents: 0,
  arrivalBufferMinutes: 0,
  minDurationMinutes: 0,
  maxDurationMinutes: 0,
  schedule: {},
  dailyCapMinutes: 0,
});

export type ProfileChange = Partial<DriverProfile["user"]> & {
  sealedTokens?: string | null;
  account?: null;
  filters?: DriverFilters | null;
  /** The zones of stations S1, S2, …, in the catalogue. */
  zones?: string[];
};

/** The profile of a driver who may run the engine (connected, set up, paid a day ahead of `now`); `change` changes what a test needs. */
export function testProfile(now: number, change: ProfileChange = {}): DriverProfile {
  const { sealedTokens = "sealed", account, filters = testFilters(["S1", "S2"]), zones = ["America/Denver", "America/New_York"], ...user } = change;
  return {
    user: {
      id: 1,
      app: "flex",
      phone: "+15005550006",
      language: "en",
      expirationAt: now + 86_400_000,
      goodStanding: true,
      accountConnected: true,
      setupComplete: true,
      status: "start",
      smsOptOut: false,
      ...user,
    },
    account: account === null ? null : { accountName: "Driver", sealedTokens },
    filters,
    stations: new Map(zones.map((timeZone, i) => [`S${i + 1}`, { id: `S${i + 1}`, name: `Station ${i + 1}`, timeZone }])),
  };
}

/** An offer history that keeps the records it is given, in order, each offer once (offer-history.ts `record`, `rejudge`). */
export function memoryHistory() {
  const records: OfferRecord[] = [];
  return {
    records,
    record: (r: OfferRecord) => {
      if (records.some((x) => x.platformOfferId === r.platformOfferId)) return false;
      records.push(r);
      return true;
    },
    /** A disliked record takes the new decision (offer-history.ts `rejudge`). */
    rejudge: (r: OfferRecord) => {
      const i = records.findIndex((x) => x.platformOfferId === r.platformOfferId);
      if (i < 0) records.push(r);
      else if (records[i]!.status === "disliked") records[i] = r;
      else return false;
      return true;
    },
  };
}

/** A Durable Object's synchronous key-value storage, in memory; values are copied in as the real one stores them. */
export function memoryKv(): SyncKvStorage & { keys(): string[] } {
  const map = new Map<string, unknown>();
  const kv = {
    get: (key: string) => structuredClone(map.get(key)),
    put: (key: string, value: unknown) => void map.set(key, structuredClone(value)),
    delete: (key: string) => map.delete(key),
    *list(options: { prefix?: string } = {}) {
      for (const key of [...map.keys()].sort()) if (key.startsWith(options.prefix ?? "")) yield [key, structuredClone(map.get(key))];
    },
    keys: () => [...map.keys()].sort(),
  };
  return kv as unknown as SyncKvStorage & { keys(): string[] };
}
