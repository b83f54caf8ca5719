/**
 * What the engine remembers of the offers it saw (docs/engine.md), in its Durable Object's storage
 * so it survives a restart: every decided offer, so none is judged, accepted or recorded twice
 * (an offer listed until taken is judged once, and again only after the driver's filters change);
 * accepts whose answer never came; and offers left for a later poll. A decision is written to the
 * driver's offer history (offer-history.ts) in the same storage transaction as the decision itself.
 */
import type { SkipReason } from "../../shared/accept-plan";
import type { DriverProfile, OfferRecord } from "./driver-store";
import type { OfferHistory } from "./offer-history";
import type { PlatformOffer } from "./platform";

/**
 * A decided offer, or one not decided yet ("pending"; the offer is kept to record it). `asked`: an
 * accept went out and its answer never came, so the platform may have given us the block.
 */
type Seen = {
  status: "won" | "disliked" | "gone" | "pending";
  forgetAt: number;
  offer?: PlatformOffer;
  asked?: boolean;
  /** Disliked before the driver's filters changed: its history record takes the new decision. */
  again?: boolean;
};

/** A decided offer is remembered this long past its expiry (it cannot be shown again after that). */
const FORGET_AFTER_MS = 10 * 60_000;
/** Offers past remembering are dropped at most this often. */
const PRUNE_EVERY_MS = 5 * 60_000;
const SEEN = "seen:";
/** Where records D1 had not taken waited before histories lived in the object (read once, then moved). */
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
    private readonly history: Pick<OfferHistory, "record" | "rejudge">,
  ) {
    for (const [key, value] of kv.list<Seen>({ prefix: SEEN })) this.seen.set(key.slice(SEEN.length), value);
    const waiting = kv.get<OfferRecord[]>(UNRECORDED);
    if (waiting) {
      for (const r of waiting) history.record(r);
      kv.delete(UNRECORDED);
    }
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
    this.remember(offer.id, { ...this.again(offer.id), status: "pending", forgetAt: offer.expiresAt + FORGET_AFTER_MS, offer, asked: true });
  }

  /** Left for the next poll, so it is not left unrecorded (one asked for before stays in doubt). */
  waiting(offer: PlatformOffer): void {
    this.remember(offer.id, {
      ...this.again(offer.id),
      status: "pending",
      forgetAt: offer.expiresAt + FORGET_AFTER_MS,
      offer,
      asked: this.seen.get(offer.id)?.asked === true,
    });
  }

  /** Marks an offer decided and records it in the history, in one storage transaction; answers its record. */
  decide(
    profile: DriverProfile,
    offer: PlatformOffer,
    status: "won" | "disliked" | "gone",
    now: number,
    extra: { reasons?: SkipReason[]; blockId?: string } = {},
  ): OfferRecord {
    const again = this.seen.get(offer.id)?.again === true;
    this.remember(offer.id, { status, forgetAt: Math.max(offer.expiresAt, now) + FORGET_AFTER_MS });
    const record = offerRecord(profile, offer, status, now, extra);
    if (again) this.history.rejudge(record);
    else this.history.record(record);
    return record;
  }

  /**
   * The driver's filters changed: offers disliked so far are judged again the next time they are
   * listed (Flex's stay listed until someone takes them). Won and gone ones stay decided.
   */
  rejudgeDisliked(): void {
    for (const [id, s] of this.seen) if (s.status === "disliked") this.remember(id, { status: "pending", forgetAt: s.forgetAt, again: true });
  }

  /** Forgets decided offers past remembering (at most every few minutes). */
  prune(now: number): void {
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    for (const [id, s] of this.seen) {
      // A pending offer is kept until decided; one only waiting to be judged again (no offer kept) goes like a decided one.
      if ((s.status !== "pending" || !s.offer) && s.forgetAt < now) {
        this.seen.delete(id);
        this.kv.delete(`${SEEN}${id}`);
      }
    }
  }

  private again(offerId: string): { again?: true } {
    return this.seen.get(offerId)?.again ? { again: true } : {};
  }

  private remember(offerId: string, seen: Seen): void {
    this.seen.set(offerId, seen);
    this.kv.put(`${SEEN}${offerId}`, seen);
  }
}
