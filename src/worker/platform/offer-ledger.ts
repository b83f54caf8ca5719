/**
 * What the engine remembers of the offers it saw (docs/engine.md), in its Durable Object's storage
 * so it survives a restart: every decided offer, so none is judged, accepted or recorded twice;
 * accepts whose answer never came; and the records D1 did not take yet, written again later.
 */
import type { Commitment, SkipReason } from "../../shared/accept-plan";
import type { Db } from "../db/client";
import type { Logger } from "../log";
import { type DriverProfile, type OfferRecord, recordOffers } from "./driver-store";
import type { PlatformOffer } from "./platform";

/**
 * A decided offer, or one not decided yet ("pending"; the offer is kept to record it). `asked`: an
 * accept went out and its answer never came, so the platform may have given us the block.
 */
type Seen = { status: "won" | "disliked" | "gone" | "pending"; forgetAt: number; offer?: PlatformOffer; asked?: boolean };

/** A decided offer is remembered this long past its expiry (it cannot be shown again after that). */
const FORGET_AFTER_MS = 10 * 60_000;
/** Offers past remembering are dropped at most this often. */
const PRUNE_EVERY_MS = 5 * 60_000;
const SEEN = "seen:";
const UNRECORDED = "unrecorded";

/** The D1 row of a decided offer, named and zoned after its station. */
export function offerRecord(
  profile: DriverProfile,
  offer: PlatformOffer,
  status: "won" | "disliked" | "gone",
  now: number,
  extra: { reasons?: SkipReason[]; blockId?: string } = {},
): OfferRecord {
  const station = profile.stations.get(offer.stationId);
  return {
    userId: profile.user.id,
    app: profile.user.app,
    platformOfferId: offer.id,
    stationId: offer.stationId,
    stationName: station?.name ?? offer.stationId,
    timeZone: station?.timeZone ?? "UTC",
    status,
    reasons: extra.reasons ?? null,
    payCents: offer.payCents,
    startsAt: offer.startsAt,
    endsAt: offer.endsAt,
    blockId: extra.blockId ?? null,
    seenAt: now,
  };
}

export class OfferLedger {
  private readonly seen = new Map<string, Seen>();
  private prunedAt = 0;

  constructor(
    private readonly kv: SyncKvStorage,
    private readonly db: Db,
    private readonly log: () => Logger,
  ) {
    for (const [key, value] of kv.list<Seen>({ prefix: SEEN })) this.seen.set(key.slice(SEEN.length), value);
  }

  /** Whether the offer was decided in an earlier poll (won, disliked or gone). */
  decided(offerId: string): boolean {
    return (this.seen.get(offerId)?.status ?? "pending") !== "pending";
  }

  /** Offers asked for whose answer never came: the platform may have given us their blocks. */
  inDoubt(): PlatformOffer[] {
    return [...this.seen.values()].filter((s) => s.status === "pending" && s.asked && s.offer).map((s) => s.offer!);
  }

  /** Undecided offers the platform no longer lists: its schedule says whether they were won. */
  unlisted(listed: ReadonlySet<string>): PlatformOffer[] {
    return [...this.seen.entries()].filter(([id, s]) => s.status === "pending" && s.offer && !listed.has(id)).map(([, s]) => s.offer!);
  }

  /** Written before asking: after a crash the outcome is read from the platform's schedule, never guessed. */
  asking(offer: PlatformOffer): void {
    this.remember(offer.id, { status: "pending", forgetAt: offer.expiresAt + FORGET_AFTER_MS, offer, asked: true });
  }

  /** Left for the next poll, so it is not left unrecorded (one asked for before stays in doubt). */
  waiting(offer: PlatformOffer): void {
    this.remember(offer.id, { status: "pending", forgetAt: offer.expiresAt + FORGET_AFTER_MS, offer, asked: this.seen.get(offer.id)?.asked === true });
  }

  /** Marks an offer decided (in storage first) and builds its record. */
  decide(
    profile: DriverProfile,
    offer: PlatformOffer,
    status: "won" | "disliked" | "gone",
    now: number,
    extra: { reasons?: SkipReason[]; blockId?: string } = {},
  ): OfferRecord {
    this.remember(offer.id, { status, forgetAt: Math.max(offer.expiresAt, now) + FORGET_AFTER_MS });
    return offerRecord(profile, offer, status, now, extra);
  }

  /** Records go to D1; any D1 will not take now wait in storage for the next alarm. */
  async record(rows: OfferRecord[]): Promise<void> {
    if (rows.length === 0) return;
    try {
      await recordOffers(this.db, rows);
    } catch (err) {
      this.log().warn("capture.record_deferred", { rows: rows.length, error: err instanceof Error ? err.message : String(err) });
      const waiting = this.kv.get<OfferRecord[]>(UNRECORDED) ?? [];
      this.kv.put(UNRECORDED, [...waiting, ...rows]);
    }
  }

  /** Writes the records D1 did not take before. */
  async flushUnrecorded(): Promise<void> {
    const waiting = this.kv.get<OfferRecord[]>(UNRECORDED);
    if (!waiting || waiting.length === 0) return;
    try {
      await recordOffers(this.db, waiting);
      this.kv.delete(UNRECORDED);
    } catch (err) {
      this.log().warn("capture.record_still_deferred", { rows: waiting.length, error: err instanceof Error ? err.message : String(err) });
    }
  }

  /** Won blocks among the records still waiting for D1 (not in D1's commitments yet) that have not ended. */
  unrecordedWins(now: number): Commitment[] {
    return (this.kv.get<OfferRecord[]>(UNRECORDED) ?? [])
      .filter((r) => r.status === "won" && r.endsAt > now)
      .map((r) => ({ offerId: r.platformOfferId, blockId: r.blockId ?? null, startsAt: r.startsAt, endsAt: r.endsAt }));
  }

  /** Forgets decided offers past remembering (at most every few minutes). */
  prune(now: number): void {
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    for (const [id, s] of this.seen) {
      if (s.status !== "pending" && s.forgetAt < now) {
        this.seen.delete(id);
        this.kv.delete(`${SEEN}${id}`);
      }
    }
  }

  private remember(offerId: string, seen: Seen): void {
    this.seen.set(offerId, seen);
    this.kv.put(`${SEEN}${offerId}`, seen);
  }
}
