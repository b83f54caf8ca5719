/**
 * The what-if: what a driver's capture engine would have done with the offers it was shown, under
 * other filters. Pure, and built from the engine's own rules (accept-plan.ts, offer-filter.ts), so
 * the replay of a history under the filters that recorded it gives back the engine's decisions.
 *
 * The engine's model, as replayed:
 * - Offers are judged poll by poll. The offers of one poll share `seenAt`, the instant they were
 *   judged (the buffer counts from then), and polls are replayed in time order. Each offer is read
 *   in its own station's zone, as recorded.
 * - The takes of a poll are asked for in rounds (planRound): the blocks held are the ones the
 *   replay took earlier that have not ended, and not given back before the poll (a won block with
 *   `forfeitedAt` stops being held from then). Nothing is in doubt: the history knows every answer.
 * - An offer asked for gets the answer the history has for it: recorded "won" is won, "gone" was
 *   taken by someone else first (nothing held, its slot stays free). One the engine passed on
 *   ("disliked") is assumed won: it may well have been gone too, so those are counted apart
 *   (`newlyTaken`). The takes a round leaves for later go to the next round, as in the engine.
 *
 * What it cannot know: blocks the driver took in the platform's own app (the engine counted them
 * against overlaps and the cap; the history does not have them), and accepts whose answer was lost
 * (the engine settled them a poll later; here they are answered in the poll that recorded them).
 *
 * Kept blocks are the ones won (or taken) and not given back: a forfeited block held its slot until
 * it was forfeited, but its pay and minutes are not kept; it is counted in `forfeits`.
 */
import { judgeOffers, planRound, type SkipReason, type Zones } from "./accept-plan";
import { type DriverFilters, toCaptureFilters } from "./driver-filters";
import type { HistoryOffer, ReplayTotals } from "./insights";

/** What the engine would have done with one offer of the history. */
export type ReplayStatus =
  /** Asked for, and the history says the block was won. */
  | "won"
  /** Asked for where the engine passed on it: assumed won (someone else might have taken it first). */
  | "taken"
  /** Asked for, but someone else took it first (as the history says). */
  | "gone"
  /** Not asked for, for its reasons (the filters', or "overlap" / "daily_cap"). */
  | "disliked";

export type ReplayDecision = { status: ReplayStatus; reasons: SkipReason[]; kept: boolean };

export type ReplayResult = {
  /** One per offer of the history, in its order (empty when not asked for). */
  decisions: ReplayDecision[];
  /** Blocks kept: won or taken, and not given back. */
  totals: ReplayTotals;
  /** Offers taken that the engine passed on. */
  newlyTaken: number;
  /** Offers asked for that someone else took first. */
  gone: number;
  /** Blocks won that the driver gave back (held until then, not kept). */
  forfeits: number;
};

export type ReplayOptions = {
  /** Whether to hand back a decision per offer (the totals alone are cheaper). Default true. */
  decisions?: boolean;
};

type Held = { startsAt: number; endsAt: number; until: number };

const NO_REASONS: SkipReason[] = [];

/** Replays `history` (any order) under `filters`; see the module's comment for the model. */
export function replayHistory(history: readonly HistoryOffer[], filters: DriverFilters, options: ReplayOptions = {}): ReplayResult {
  const wantDecisions = options.decisions ?? true;
  const capture = toCaptureFilters(filters);
  const dailyCapMinutes = filters.dailyCapMinutes;
  const decisions: ReplayDecision[] = wantDecisions ? new Array(history.length) : [];
  const result: ReplayResult = { decisions, totals: { blocks: 0, minutes: 0, payCents: 0 }, newlyTaken: 0, gone: 0, forfeits: 0 };
  const decide = (index: number, status: ReplayStatus, reasons: SkipReason[], kept: boolean) => {
    if (wantDecisions) decisions[index] = { status, reasons, kept };
  };

  // Positions in judging order: by seenAt, then as recorded.
  const order = Array.from(history.keys());
  if (!history.every((o, i) => i === 0 || history[i - 1]!.seenAt <= o.seenAt)) {
    order.sort((a, b) => history[a]!.seenAt - history[b]!.seenAt || a - b);
  }

  // Each station read in the zone its offers were recorded in (the latest poll's, should it change).
  const zoneOf = new Map<string, { timeZone: string }>();
  const zones: Zones = zoneOf;
  let held: Held[] = [];

  type Item = { id: string; stationId: string; startsAt: number; endsAt: number; payCents: number; at: number };
  for (let start = 0; start < order.length; ) {
    const seenAt = history[order[start]!]!.seenAt;
    let end = start;
    const poll: Item[] = [];
    while (end < order.length && history[order[end]!]!.seenAt === seenAt) {
      const at = order[end]!;
      const o = history[at]!;
      if (zoneOf.get(o.stationId)?.timeZone !== o.timeZone) zoneOf.set(o.stationId, { timeZone: o.timeZone });
      poll.push({ id: o.platformOfferId, stationId: o.stationId, startsAt: o.startsAt, endsAt: o.endsAt, payCents: o.payCents, at });
      end++;
    }
    start = end;

    // The blocks held at this poll: not ended, not given back.
    held = held.filter((h) => h.endsAt > seenAt && h.until > seenAt);
    const { takes, disliked } = judgeOffers(poll, capture, zones, seenAt);
    for (const { offer, reasons } of disliked) decide(offer.at, "disliked", reasons, false);

    let remaining = takes;
    while (remaining.length > 0) {
      const round = planRound(remaining, { held, inDoubt: [], dailyCapMinutes, stations: zones });
      for (const { offer, reason } of round.disliked) decide(offer.at, "disliked", [reason], false);
      for (const offer of round.accept) {
        const o = history[offer.at]!;
        if (o.status === "gone") {
          result.gone++;
          decide(offer.at, "gone", NO_REASONS, false);
          continue;
        }
        const forfeited = o.status === "won" && o.forfeitedAt !== null;
        held.push({ startsAt: o.startsAt, endsAt: o.endsAt, until: forfeited ? o.forfeitedAt! : Number.POSITIVE_INFINITY });
        if (o.status === "disliked") result.newlyTaken++;
        if (forfeited) result.forfeits++;
        else {
          result.totals.blocks++;
          result.totals.minutes += (o.endsAt - o.startsAt) / 60_000;
          result.totals.payCents += o.payCents;
        }
        decide(offer.at, o.status === "won" ? "won" : "taken", NO_REASONS, !forfeited);
      }
      remaining = round.later;
    }
  }
  return result;
}
