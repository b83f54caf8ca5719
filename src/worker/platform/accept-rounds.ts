/**
 * The engine's accepts against the platform (docs/engine.md): the rounds of the accept plan
 * (src/shared/accept-plan.ts) asked for one after the other, each won block held before the next
 * round is planned; and the accepts left in doubt, settled from the platform's schedule. Every decision goes
 * to the ledger, which records it in the driver's history; the won ones are handed back to text the driver.
 */
import { type Commitment, planRound } from "../../shared/accept-plan";
import type { DriverProfile, OfferRecord } from "./driver-store";
import { matchingAssignment } from "./flex-answers";
import type { OfferLedger } from "./offer-ledger";
import { type DeliveryPlatform, PlatformError, type PlatformOffer, type ScheduledBlock } from "./platform";

export type Accepted = {
  /** The records of blocks won, to text the driver. */
  won: OfferRecord[];
  /** The platform failed a call: the engine backs off; what it left undecided waits for a later poll. */
  stalled: PlatformError | null;
};

type Context = { platform: DeliveryPlatform; token: string; ledger: OfferLedger; profile: DriverProfile; now: number };

const asPlatformError = (err: unknown) => (err instanceof PlatformError ? err : new PlatformError("unavailable", String(err)));

/**
 * Asks for the takes (best first) round by round. `held` gains each block won. Takes not asked for
 * (the platform failed an accept, or one overlaps an accept in doubt) wait in the ledger.
 */
export async function acceptInRounds(takes: PlatformOffer[], held: Commitment[], { platform, token, ledger, profile, now }: Context): Promise<Accepted> {
  const done: Accepted = { won: [], stalled: null };
  const inDoubt = ledger.inDoubt();
  const dailyCapMinutes = profile.filters?.dailyCapMinutes ?? 0;
  const deferred: PlatformOffer[] = [];
  let remaining = takes;
  while (remaining.length > 0 && !done.stalled) {
    const round = planRound(remaining, { held, inDoubt, dailyCapMinutes, stations: profile.stations });
    for (const { offer, reason } of round.disliked) ledger.decide(profile, offer, "disliked", now, { reasons: [reason] });
    deferred.push(...round.deferred);
    for (const offer of round.accept) ledger.asking(offer);
    const outcomes = await Promise.allSettled(round.accept.map((offer) => platform.accept(token, offer)));
    outcomes.forEach((outcome, i) => {
      const offer = round.accept[i]!;
      if (outcome.status === "rejected") {
        // Stays pending: the next poll tries again while the offer is listed, or reads the schedule.
        done.stalled = asPlatformError(outcome.reason);
      } else if (outcome.value.kind === "won") {
        // Flex's accept names no block id: it comes from the schedule later (capture-session.ts giveIds).
        const blockId = outcome.value.block.id;
        held.push({ offerId: offer.id, blockId, startsAt: offer.startsAt, endsAt: offer.endsAt });
        done.won.push(ledger.decide(profile, offer, "won", now, blockId ? { blockId } : {}));
      } else ledger.decide(profile, offer, "gone", now);
    });
    remaining = round.later;
  }
  for (const offer of [...remaining, ...deferred]) ledger.waiting(offer);
  return done;
}

/**
 * Settles accepts whose answer never came and whose offer the platform no longer lists: its
 * schedule says won or gone. Answers the schedule it read too (null when there was nothing to
 * settle, or the platform failed: then `stalled`).
 */
export async function settleUnlisted(
  unlisted: PlatformOffer[],
  { platform, token, ledger, profile, now }: Context,
): Promise<Accepted & { schedule: { blocks: ScheduledBlock[]; at: number } | null }> {
  const done: Accepted & { schedule: { blocks: ScheduledBlock[]; at: number } | null } = { won: [], stalled: null, schedule: null };
  if (unlisted.length === 0) return done;
  try {
    const blocks = await platform.scheduledBlocks(token);
    done.schedule = { blocks, at: Date.now() };
    for (const offer of unlisted) {
      // The schedule names the offer (Spark's modelled one), or has an assignment at its station and times (Flex).
      const block = blocks.find((b) => b.offerId === offer.id) ?? matchingAssignment(blocks, offer);
      const record = ledger.decide(profile, offer, block ? "won" : "gone", now, block?.id ? { blockId: block.id } : {});
      if (block) done.won.push(record);
    }
  } catch (err) {
    done.stalled = asPlatformError(err);
  }
  return done;
}
