/**
 * A driver's offer history, kept by the driver's own capture engine in its Durable Object's SQLite
 * storage (docs/capacity.md, "Where offers live"): every offer the engine was shown, won, disliked
 * (with the reasons) or gone. The dashboard, the calendar, "why not taken", the insights and the
 * admin's acting-for view read it through the object; D1 keeps only the won blocks, which other
 * drivers' views and the admin's figures need (shareWon).
 *
 * Writes are synchronous and land in the same storage transaction as the ledger's decision, so a
 * restart can never leave an offer decided but unrecorded. Rows are kept as long as the privacy
 * policy says (RETENTION in src/worker/retention.ts) and pruned by the object itself.
 */
import { sql } from "drizzle-orm";
import type { SkipReason } from "../../shared/accept-plan";
import type { HistoryOffer } from "../../shared/insights";
import type { Db } from "../db/client";
import { offers } from "../db/schema";
import { RETENTION } from "../retention";
import type { OfferRecord } from "./driver-store";

export type OfferStatus = HistoryOffer["status"];
export type Counts = Record<OfferStatus, number>;
/** The statuses in the order forReplay reads them as numbers. */
const STATUSES: readonly OfferStatus[] = ["won", "disliked", "gone"];

/** One version of the table below; a new version adds a step to `migrate`. */
const SCHEMA_VERSION = 1;
/** Rows a read answers at most (a page, a calendar, a period of the insights). */
export const HISTORY_READ_LIMIT = 100_000;
/** Rows one prune deletes at most; a backlog goes over the next prunes. */
const PRUNE_BATCH = 5_000;
/** Won blocks written to D1 in one go (6 rows a statement, 10 statements a batch). */
const SHARE_BATCH = 60;

const COLUMNS =
  "id, platform_offer_id, station_id, station_name, time_zone, status, reasons, pay_cents, starts_at, ends_at, block_id, forfeited_at, arrived_at, seen_at";

/** An offer from a row of COLUMNS as an array (the SQL cursor's raw rows). */
function fromColumns(c: SqlStorageValue[]): HistoryOffer {
  return {
    id: c[0] as number,
    platformOfferId: c[1] as string,
    stationId: c[2] as string,
    stationName: c[3] as string,
    timeZone: c[4] as string,
    status: c[5] as OfferStatus,
    reasons: c[6] ? (JSON.parse(c[6] as string) as SkipReason[]) : [],
    payCents: c[7] as number,
    startsAt: c[8] as number,
    endsAt: c[9] as number,
    blockId: c[10] as string | null,
    forfeitedAt: c[11] as number | null,
    arrivedAt: c[12] as number | null,
    seenAt: c[13] as number,
  };
}

export class OfferHistory {
  /** Changes since this object started (records, updates, prunes): what was read before is stale when it moved. */
  version = 0;
  /** Told the id of each offer recorded, judged again or updated, once written (the live dashboard: live-dashboard.ts). */
  onChange: ((id: number) => void) | null = null;

  constructor(
    private readonly sql: SqlStorage,
    private readonly kv: SyncKvStorage,
  ) {
    this.migrate();
  }

  private migrate() {
    const version = this.kv.get<number>("history.version") ?? 0;
    if (version >= SCHEMA_VERSION) return;
    // `shared_at`: when a won block was last written to D1; null while D1 does not have its latest state.
    this.sql.exec(`CREATE TABLE IF NOT EXISTS offers (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      platform_offer_id TEXT NOT NULL UNIQUE,
      app TEXT NOT NULL,
      station_id TEXT NOT NULL,
      station_name TEXT NOT NULL,
      time_zone TEXT NOT NULL,
      status TEXT NOT NULL,
      reasons TEXT,
      pay_cents INTEGER NOT NULL,
      starts_at INTEGER NOT NULL,
      ends_at INTEGER NOT NULL,
      block_id TEXT,
      forfeited_at INTEGER,
      arrived_at INTEGER,
      seen_at INTEGER NOT NULL,
      shared_at INTEGER
    )`);
    this.sql.exec("CREATE INDEX IF NOT EXISTS offers_seen ON offers (seen_at)");
    this.sql.exec("CREATE INDEX IF NOT EXISTS offers_status_seen ON offers (status, seen_at)");
    this.sql.exec("CREATE INDEX IF NOT EXISTS offers_status_start ON offers (status, starts_at)");
    this.sql.exec("CREATE INDEX IF NOT EXISTS offers_unshared ON offers (shared_at) WHERE status = 'won' AND shared_at IS NULL");
    this.kv.put("history.version", SCHEMA_VERSION);
  }

  /** Records an offer once (a second record of the same offer is ignored); answers whether it was new. */
  record(r: OfferRecord): boolean {
    const won = r.status === "won";
    const cursor = this.sql.exec(
      `INSERT INTO offers (platform_offer_id, app, station_id, station_name, time_zone, status, reasons, pay_cents, starts_at, ends_at, block_id, forfeited_at, arrived_at, seen_at, shared_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (platform_offer_id) DO NOTHING RETURNING id`,
      r.platformOfferId,
      r.app,
      r.stationId,
      r.stationName,
      r.timeZone,
      r.status,
      r.reasons && r.reasons.length > 0 ? JSON.stringify(r.reasons) : null,
      r.payCents,
      r.startsAt,
      r.endsAt,
      r.blockId ?? null,
      r.forfeitedAt ?? null,
      r.arrivedAt ?? null,
      r.seenAt,
      // A won block goes to D1 after the poll (shareWon); anything else stays here only.
      won ? null : 0,
    );
    const added = cursor.toArray()[0] as { id: number } | undefined;
    if (added) {
      this.count(r.status, 1);
      this.version++;
      this.onChange?.(added.id);
    }
    return added !== undefined;
  }

  /**
   * A disliked offer judged again (the driver's filters changed while it was still listed) takes
   * the new decision; an offer recorded otherwise, or not at all, is recorded as `record` does.
   */
  rejudge(r: OfferRecord): boolean {
    if (this.record(r)) return true;
    const reasons = r.reasons && r.reasons.length > 0 ? JSON.stringify(r.reasons) : null;
    const previous = this.sql
      .exec<{ id: number; status: OfferStatus; reasons: string | null }>(
        "SELECT id, status, reasons FROM offers WHERE platform_offer_id = ?",
        r.platformOfferId,
      )
      .toArray()[0];
    if (previous?.status !== "disliked" || (r.status === "disliked" && previous.reasons === reasons)) return false;
    this.sql.exec(
      "UPDATE offers SET status = ?, reasons = ?, block_id = ?, seen_at = ?, shared_at = ? WHERE platform_offer_id = ?",
      r.status,
      reasons,
      r.blockId ?? null,
      r.seenAt,
      r.status === "won" ? null : 0,
      r.platformOfferId,
    );
    this.count(previous.status, -1);
    this.count(r.status, 1);
    this.version++;
    this.onChange?.(previous.id);
    return true;
  }

  /** Offers recorded per status, kept as counters so a dashboard read does not count the table. */
  counts(): Counts {
    return this.kv.get<Counts>("history.counts") ?? { won: 0, disliked: 0, gone: 0 };
  }

  private count(status: OfferStatus, by: number) {
    const counts = this.counts();
    counts[status] += by;
    this.kv.put("history.counts", counts);
  }

  /** Newest first, a page at a time. */
  page(page: number, pageSize: number, status?: OfferStatus): HistoryOffer[] {
    const offset = (page - 1) * pageSize;
    return status
      ? this.offers(`SELECT ${COLUMNS} FROM offers WHERE status = ? ORDER BY seen_at DESC, id DESC LIMIT ? OFFSET ?`, status, pageSize, offset)
      : this.offers(`SELECT ${COLUMNS} FROM offers ORDER BY seen_at DESC, id DESC LIMIT ? OFFSET ?`, pageSize, offset);
  }

  byId(id: number): HistoryOffer | null {
    return this.offers(`SELECT ${COLUMNS} FROM offers WHERE id = ?`, id)[0] ?? null;
  }

  /**
   * The offers a query of COLUMNS selects, read as raw rows (arrays): the cursor then hands over
   * values only, not an object with the column names for every row.
   */
  private offers(query: string, ...params: SqlStorageValue[]): HistoryOffer[] {
    const out: HistoryOffer[] = [];
    for (const row of this.sql.exec(query, ...params).raw()) out.push(fromColumns(row));
    return out;
  }

  /** Offers shown from `from` on, oldest first (the insights' periods). */
  seenSince(from: number, limit = HISTORY_READ_LIMIT): HistoryOffer[] {
    return this.offers(`SELECT ${COLUMNS} FROM offers WHERE seen_at >= ? ORDER BY seen_at, id LIMIT ?`, from, limit);
  }

  /**
   * Offers shown from `from` on, oldest first, with only what the what-if's replay reads
   * (src/shared/replay.ts): no station name, reasons, block id or check-in. A month of a busy
   * driver is tens of thousands of rows, and each value the SQL cursor hands over costs, a string
   * most: the station and its zone come as one value, split once per station, and the status as
   * its index in STATUSES.
   */
  forReplay(from: number, limit = HISTORY_READ_LIMIT): HistoryOffer[] {
    const places = new Map<string, [stationId: string, timeZone: string]>();
    const out: HistoryOffer[] = [];
    const rows = this.sql.exec(
      `SELECT id, platform_offer_id, station_id || char(31) || time_zone, CASE status WHEN 'won' THEN 0 WHEN 'disliked' THEN 1 ELSE 2 END,
       pay_cents, starts_at, ends_at, forfeited_at, seen_at FROM offers WHERE seen_at >= ? ORDER BY seen_at, id LIMIT ?`,
      from,
      limit,
    );
    for (const c of rows.raw()) {
      const key = c[2] as string;
      let place = places.get(key);
      if (!place) {
        const split = key.indexOf("\u001f");
        place = [key.slice(0, split), key.slice(split + 1)];
        places.set(key, place);
      }
      out.push({
        id: c[0] as number,
        platformOfferId: c[1] as string,
        stationId: place[0],
        stationName: "",
        timeZone: place[1],
        status: STATUSES[c[3] as number]!,
        reasons: [],
        payCents: c[4] as number,
        startsAt: c[5] as number,
        endsAt: c[6] as number,
        blockId: null,
        forfeitedAt: c[7] as number | null,
        arrivedAt: null,
        seenAt: c[8] as number,
      });
    }
    return out;
  }

  /** Won blocks starting in [from, to), forfeited ones included, by start. */
  wonStarting(from: number, to: number, limit = HISTORY_READ_LIMIT): HistoryOffer[] {
    return this.offers(
      `SELECT ${COLUMNS} FROM offers WHERE status = 'won' AND starts_at >= ? AND starts_at < ? ORDER BY starts_at, id LIMIT ?`,
      from,
      to,
      limit,
    );
  }

  /** Won blocks not given back that have not ended: the engine holds them against overlaps and the daily cap. */
  commitments(now: number): { offerId: string; blockId: string | null; startsAt: number; endsAt: number }[] {
    // Won blocks start within days of being shown: the index range starts a day before the longest block could.
    return this.sql
      .exec<{ platform_offer_id: string; block_id: string | null; starts_at: number; ends_at: number }>(
        "SELECT platform_offer_id, block_id, starts_at, ends_at FROM offers WHERE status = 'won' AND starts_at >= ? AND ends_at > ? AND forfeited_at IS NULL ORDER BY starts_at LIMIT 500",
        now - 86_400_000,
        now,
      )
      .toArray()
      .map((r) => ({ offerId: r.platform_offer_id, blockId: r.block_id, startsAt: r.starts_at, endsAt: r.ends_at }));
  }

  /** Won blocks not given back, not ended, whose platform id is not known yet (the schedule gives it). */
  awaitingIds(now: number): { id: number; stationId: string; startsAt: number; endsAt: number }[] {
    return this.sql
      .exec<{ id: number; station_id: string; starts_at: number; ends_at: number }>(
        "SELECT id, station_id, starts_at, ends_at FROM offers WHERE status = 'won' AND block_id IS NULL AND forfeited_at IS NULL AND starts_at >= ? AND ends_at > ? LIMIT 100",
        now - 86_400_000,
        now,
      )
      .toArray()
      .map((r) => ({ id: r.id, stationId: r.station_id, startsAt: r.starts_at, endsAt: r.ends_at }));
  }

  /** Marks a won block given back or checked in, or gives it its platform id; D1's copy follows with the next shareWon. */
  update(id: number, change: { forfeitedAt?: number; arrivedAt?: number; blockId?: string }) {
    this.version++;
    if (change.blockId !== undefined) this.sql.exec("UPDATE offers SET block_id = ?, shared_at = NULL WHERE id = ?", change.blockId, id);
    if (change.forfeitedAt !== undefined) this.sql.exec("UPDATE offers SET forfeited_at = ?, shared_at = NULL WHERE id = ?", change.forfeitedAt, id);
    if (change.arrivedAt !== undefined) this.sql.exec("UPDATE offers SET arrived_at = ?, shared_at = NULL WHERE id = ?", change.arrivedAt, id);
    this.onChange?.(id);
  }

  /** Won blocks whose latest state D1 does not have yet (records still to share). */
  unsharedCount(): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM offers WHERE status = 'won' AND shared_at IS NULL").one().n;
  }

  /**
   * Writes won blocks D1 does not have (or has an older state of) to D1, then marks them shared.
   * Throws when D1 refuses: they stay unshared for the next call.
   */
  async shareWon(db: Db, userId: number, now: number): Promise<number> {
    let shared = 0;
    for (;;) {
      const rows = [...this.sql.exec(`SELECT ${COLUMNS}, app FROM offers WHERE status = 'won' AND shared_at IS NULL ORDER BY id LIMIT ?`, SHARE_BATCH).raw()];
      if (rows.length === 0) return shared;
      const blocks = rows.map((row) => ({ offer: fromColumns(row), app: row[14] as "flex" | "spark" }));
      await writeWonBlocks(
        db,
        blocks.map(({ offer, app }) => recordOf(offer, userId, app)),
      );
      for (const { offer } of blocks) this.sql.exec("UPDATE offers SET shared_at = ? WHERE id = ?", now, offer.id);
      shared += rows.length;
    }
  }

  /** Deletes what is past its time (RETENTION): offers not won after 90 days, won blocks after 400. Answers the rows deleted. */
  prune(now: number): number {
    let deleted = 0;
    for (const [status, keep] of [
      ["disliked", RETENTION.offersNotWon],
      ["gone", RETENTION.offersNotWon],
      ["won", RETENTION.offersWon],
    ] as const) {
      const n = this.sql.exec(
        "DELETE FROM offers WHERE id IN (SELECT id FROM offers WHERE status = ? AND seen_at < ? ORDER BY seen_at LIMIT ?)",
        status,
        now - keep,
        PRUNE_BATCH,
      ).rowsWritten;
      if (n > 0) {
        this.count(status, -n);
        this.version++;
      }
      deleted += n;
    }
    return deleted;
  }

  /** The oldest offer kept, or null when the history is empty (when the next prune is due). */
  oldestSeenAt(): number | null {
    return this.sql.exec<{ t: number | null }>("SELECT min(seen_at) AS t FROM offers").one().t;
  }
}

/** The D1 row of a won block, from its history entry. */
function recordOf(o: HistoryOffer, userId: number, app: "flex" | "spark"): typeof offers.$inferInsert {
  return {
    userId,
    app,
    platformOfferId: o.platformOfferId,
    stationId: o.stationId,
    stationName: o.stationName,
    timeZone: o.timeZone,
    payCents: o.payCents,
    startsAt: o.startsAt,
    endsAt: o.endsAt,
    blockId: o.blockId,
    forfeitedAt: o.forfeitedAt,
    arrivedAt: o.arrivedAt,
    seenAt: o.seenAt,
  };
}

/** Columns of an offer record: chunks of 6 rows keep a statement under D1's 100 bound parameters. */
const RECORD_CHUNK = 6;

/** Writes won blocks to D1: new ones inserted, known ones brought up to date (given back, checked in). */
async function writeWonBlocks(db: Db, rows: (typeof offers.$inferInsert)[]) {
  const statements = [];
  for (let i = 0; i < rows.length; i += RECORD_CHUNK) {
    statements.push(
      db
        .insert(offers)
        .values(rows.slice(i, i + RECORD_CHUNK))
        .onConflictDoUpdate({
          target: [offers.userId, offers.platformOfferId],
          set: { forfeitedAt: sql`excluded.forfeited_at`, arrivedAt: sql`excluded.arrived_at`, blockId: sql`excluded.block_id` },
        }),
    );
  }
  if (statements.length > 0) await db.batch(statements as [(typeof statements)[number], ...(typeof statements)[number][]]);
}
