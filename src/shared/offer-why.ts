/**
 * The dashboard's "why not taken", with the figures that make it readable ("pay $62 is under your
 * $70 minimum"): each reason a disliked offer was recorded with, and the numbers behind it from
 * the offer and the driver's filters (a station's own minimum when it has one). An offer keeps the
 * reasons, not the filters of the moment: when today's filters no longer explain a reason (the
 * minimum lowered since, the station added), it says so (`outdated`), so the words never claim that
 * $50/hour is under a $0/hour minimum.
 */
import type { DriverFilters } from "./driver-filters";
import { localReading, type Weekday } from "./zoned-time";

export type OfferFacts = { stationId: string; startsAt: number; endsAt: number; payCents: number; timeZone: string; seenAt: number };

/** `outdated`: the reason held when the offer was judged, but today's filters do not show why. */
type Outdated = { outdated?: true };

export type Why =
  | ({ reason: "station" } & Outdated)
  | ({ reason: "pay"; payCents: number; minCents: number } & Outdated)
  | ({ reason: "hourly"; hourlyCents: number; minCents: number } & Outdated)
  | ({ reason: "buffer"; minutesAhead: number; bufferMinutes: number } & Outdated)
  | { reason: "day"; weekday: Weekday }
  | { reason: "window" }
  | ({ reason: "duration"; minutes: number; minMinutes: number; maxMinutes: number } & Outdated)
  | { reason: "overlap" }
  | ({ reason: "daily_cap"; capMinutes: number } & Outdated);

/** `outdated: true` when today's filters do not account for the reason. */
const outdatedUnless = (explained: boolean): Outdated => (explained ? {} : { outdated: true });

export function explainReasons(offer: OfferFacts, reasons: readonly string[], filters: DriverFilters | null): Why[] {
  const station = filters?.stations.find((s) => s.id === offer.stationId);
  const minutes = Math.round((offer.endsAt - offer.startsAt) / 60_000);
  const out: Why[] = [];
  for (const reason of reasons) {
    switch (reason) {
      case "station":
        out.push({ reason, ...outdatedUnless(!station) });
        break;
      case "window":
      case "overlap":
        out.push({ reason });
        break;
      case "pay": {
        const minCents = station?.minPayCents ?? filters?.minPayCents ?? 0;
        out.push({ reason, payCents: offer.payCents, minCents, ...outdatedUnless(offer.payCents < minCents) });
        break;
      }
      case "hourly": {
        const hourlyCents = minutes > 0 ? Math.round((offer.payCents * 60) / minutes) : 0;
        const minCents = station?.minHourlyCents ?? filters?.minHourlyCents ?? 0;
        out.push({ reason, hourlyCents, minCents, ...outdatedUnless(hourlyCents < minCents) });
        break;
      }
      case "buffer": {
        const minutesAhead = Math.floor((offer.startsAt - offer.seenAt) / 60_000);
        const bufferMinutes = filters?.arrivalBufferMinutes ?? 0;
        out.push({ reason, minutesAhead, bufferMinutes, ...outdatedUnless(minutesAhead < bufferMinutes) });
        break;
      }
      case "day":
        out.push({ reason, weekday: localReading(offer.startsAt, offer.timeZone).weekday });
        break;
      case "duration": {
        const minMinutes = filters?.minDurationMinutes ?? 0;
        const maxMinutes = filters?.maxDurationMinutes ?? 0;
        out.push({ reason, minutes, minMinutes, maxMinutes, ...outdatedUnless(minutes < minMinutes || (maxMinutes > 0 && minutes > maxMinutes)) });
        break;
      }
      case "daily_cap": {
        const capMinutes = filters?.dailyCapMinutes ?? 0;
        out.push({ reason, capMinutes, ...outdatedUnless(capMinutes > 0) });
        break;
      }
    }
  }
  return out;
}
