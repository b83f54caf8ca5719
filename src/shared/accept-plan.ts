/**
 * Which offers of one answer from the platform the engine accepts, in which rounds, and why it
 * dislikes the others (docs/engine.md). Pure: the CaptureSession asks the platform, keeps what it
 * decided and feeds each round's wins back in as commitments; the insights' what-if (replay.ts)
 * plays the same rules over the offers a driver's history kept. So it knows offers and blocks only
 * by their shape (OfferLike, ScheduledLike), and hands back the caller's own offer type.
 *
 * Every new offer is judged with evaluateOffer; the ones to take go best pay per hour first. They
 * are asked for in rounds: a round holds every take that overlaps nothing held, nothing in doubt
 * and nothing else in the round, and stays within the daily cap; a take that overlaps a better
 * one in the round waits for the next round, to see whether that one was won.
 */
import { type CaptureFilters, evaluateOffer, type Reason } from "./offer-filter";
import { localReading } from "./zoned-time";

/** Why an offer was not taken: the filters' reasons, or the engine's own. */
export type SkipReason = Reason | "overlap" | "daily_cap";

type Span = { startsAt: number; endsAt: number };
/** An offer as the plan reads it (the platform's offers have more). */
export type OfferLike = Span & { id: string; stationId: string; payCents: number; hidden?: boolean };
/** A block on the platform's schedule as the plan reads it. */
export type ScheduledLike = Span & { id: string | null; offerId: string | null };
/** A block the driver holds: won by us, or on the platform's schedule (taken in its own app too). */
export type Commitment = { offerId: string; blockId: string | null; startsAt: number; endsAt: number };
export type Zones = ReadonlyMap<string, { timeZone: string }>;

const minutes = (o: Span) => (o.endsAt - o.startsAt) / 60_000;
const overlaps = (a: Span, b: Span) => a.startsAt < b.endsAt && b.startsAt < a.endsAt;
const zoneOf = (stations: Zones, stationId: string) => stations.get(stationId)?.timeZone ?? "UTC";

/** The listed offers still to decide: not hidden by the driver, and not decided in an earlier poll. */
export function offersToJudge<O extends OfferLike>(listed: readonly O[], decided: (offerId: string) => boolean): O[] {
  return listed.filter((o) => !o.hidden && !decided(o.id));
}

/**
 * Judges each offer at `at` (the buffer counts from then) in its station's zone: the ones to take,
 * best pay per hour first (then the earliest, then the best pay), and the others with their
 * reasons, in the order listed. A zone the runtime does not know is the `station` reason.
 */
export function judgeOffers<O extends OfferLike>(
  offers: readonly O[],
  filters: CaptureFilters,
  stations: Zones,
  at: number,
): { takes: O[]; disliked: { offer: O; reasons: SkipReason[] }[] } {
  const takes: O[] = [];
  const disliked: { offer: O; reasons: SkipReason[] }[] = [];
  for (const offer of offers) {
    let reasons: SkipReason[];
    try {
      reasons = evaluateOffer({ ...offer, timeZone: zoneOf(stations, offer.stationId) }, filters, at).reasons;
    } catch {
      reasons = ["station"];
    }
    if (reasons.length === 0) takes.push(offer);
    else disliked.push({ offer, reasons });
  }
  takes.sort((a, b) => b.payCents / minutes(b) - a.payCents / minutes(a) || a.startsAt - b.startsAt || b.payCents - a.payCents);
  return { takes, disliked };
}

/**
 * The blocks held now: ours (`own`: D1's, won since it was read, waiting for D1), then the
 * platform's schedule without the ones already listed (same block, same offer, or the same times:
 * a block whose id is not known yet). An entry the schedule gives no id still counts as busy time.
 */
export function heldBlocks(own: readonly Commitment[], scheduled: readonly ScheduledLike[], now: number): Commitment[] {
  const list = own.filter((c) => c.endsAt > now).map((c) => ({ ...c }));
  scheduled.forEach((b, i) => {
    const listed = list.some(
      (c) => (b.id !== null && c.blockId === b.id) || (b.offerId !== null && c.offerId === b.offerId) || (c.startsAt === b.startsAt && c.endsAt === b.endsAt),
    );
    if (b.endsAt > now && !listed) list.push({ offerId: b.offerId ?? b.id ?? `scheduled-${i}`, blockId: b.id, startsAt: b.startsAt, endsAt: b.endsAt });
  });
  return list;
}

/** Whether taking the offer would pass the daily cap (0: none) on the station-local day it starts. */
export function overDailyCap(offer: OfferLike, held: readonly Span[], dailyCapMinutes: number, stations: Zones): boolean {
  if (dailyCapMinutes <= 0) return false;
  const tz = zoneOf(stations, offer.stationId);
  const day = (t: number) => {
    const r = localReading(t, tz);
    return `${r.year}-${r.month}-${r.day}`;
  };
  const target = day(offer.startsAt);
  const booked = held.filter((c) => day(c.startsAt) === target).reduce((sum, c) => sum + minutes(c), 0);
  return booked + minutes(offer) > dailyCapMinutes;
}

export type RoundInput = {
  /** Blocks held, with the ones won in the earlier rounds of this poll. */
  held: readonly Span[];
  /** Offers asked for in an earlier poll whose answer never came: they may have been won. */
  inDoubt: readonly (Span & { id: string })[];
  dailyCapMinutes: number;
  stations: Zones;
};

export type Round<O extends OfferLike = OfferLike> = {
  /** Ask for these at once. */
  accept: O[];
  /** The next round's takes: each overlaps one asked for now, or passes the cap if all of them are won. */
  later: O[];
  /** Overlap an accept in doubt: left for a later poll, once that accept is settled. */
  deferred: O[];
  /** Not taken, in the order met. */
  disliked: { offer: O; reason: "overlap" | "daily_cap" }[];
};

/** One round of accepts from the takes still open (best first). */
export function planRound<O extends OfferLike>(takes: readonly O[], input: RoundInput): Round<O> {
  const round: Round<O> = { accept: [], later: [], deferred: [], disliked: [] };
  for (const offer of takes) {
    if (input.held.some((c) => overlaps(c, offer))) round.disliked.push({ offer, reason: "overlap" });
    else if (input.inDoubt.some((p) => p.id !== offer.id && overlaps(p, offer))) round.deferred.push(offer);
    else if (round.accept.some((r) => overlaps(r, offer))) round.later.push(offer);
    else if (overDailyCap(offer, [...input.held, ...round.accept], input.dailyCapMinutes, input.stations)) {
      // Over the cap only if the round's blocks are all won: wait for them, unless there are none.
      if (round.accept.length > 0) round.later.push(offer);
      else round.disliked.push({ offer, reason: "daily_cap" });
    } else round.accept.push(offer);
  }
  return round;
}
