/**
 * The dashboard's "why not taken", with the figures that make it readable ("pay $62 is under your
 * $70 minimum"): each reason a disliked offer was recorded with, and the numbers behind it from
 * the offer and the driver's filters (a station's own minimum when it has one).
 */
import type { DriverFilters } from "./driver-filters";
import type { Weekday } from "./offer-filter";
import { localReading } from "./zoned-time";

export type OfferFacts = { stationId: string; startsAt: number; endsAt: number; payCents: number; timeZone: string; seenAt: number };

export type Why =
  | { reason: "station" }
  | { reason: "pay"; payCents: number; minCents: number }
  | { reason: "hourly"; hourlyCents: number; minCents: number }
  | { reason: "buffer"; minutesAhead: number; bufferMinutes: number }
  | { reason: "day"; weekday: Weekday }
  | { reason: "window" }
  | { reason: "duration"; minutes: number; minMinutes: number; maxMinutes: number }
  | { reason: "overlap" }
  | { reason: "daily_cap"; capMinutes: number };

export function explainReasons(offer: OfferFacts, reasons: readonly string[], filters: DriverFilters | null): Why[] {
  const station = filters?.stations.find((s) => s.id === offer.stationId);
  const minutes = Math.round((offer.endsAt - offer.startsAt) / 60_000);
  const out: Why[] = [];
  for (const reason of reasons) {
    switch (reason) {
      case "station":
      case "window":
      case "overlap":
        out.push({ reason });
        break;
      case "pay":
        out.push({ reason, payCents: offer.payCents, minCents: station?.minPayCents ?? filters?.minPayCents ?? 0 });
        break;
      case "hourly":
        out.push({
          reason,
          hourlyCents: minutes > 0 ? Math.round((offer.payCents * 60) / minutes) : 0,
          minCents: station?.minHourlyCents ?? filters?.minHourlyCents ?? 0,
        });
        break;
      case "buffer":
        out.push({ reason, minutesAhead: Math.floor((offer.startsAt - offer.seenAt) / 60_000), bufferMinutes: filters?.arrivalBufferMinutes ?? 0 });
        break;
      case "day":
        out.push({ reason, weekday: localReading(offer.startsAt, offer.timeZone).weekday });
        break;
      case "duration":
        out.push({ reason, minutes, minMinutes: filters?.minDurationMinutes ?? 0, maxMinutes: filters?.maxDurationMinutes ?? 0 });
        break;
      case "daily_cap":
        out.push({ reason, capMinutes: filters?.dailyCapMinutes ?? 0 });
        break;
    }
  }
  return out;
}
