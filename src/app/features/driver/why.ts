import type { TFunction } from "i18next";
import type { DriverFilters } from "../../../shared/driver-filters";
import { explainReasons, type OfferFacts } from "../../../shared/offer-why";
import { lengthText, money, weekdayName } from "./format";

/**
 * Each reason a disliked offer was not taken, in words with its figures ("pay $62 is under your $70
 * minimum"), or as a reason of the time when today's filters no longer account for it.
 */
export function whyWords(
  offer: OfferFacts & { stationName: string },
  reasons: readonly string[],
  filters: DriverFilters | null,
  t: TFunction<"driver">,
  lang: string,
): string[] {
  return explainReasons(offer, reasons, filters).map((why) => {
    switch (why.reason) {
      case "station":
        return t(why.outdated ? "why.stationThen" : "why.station", { station: offer.stationName });
      case "pay":
        return why.outdated
          ? t("why.payThen", { pay: money(why.payCents, lang) })
          : t("why.pay", { pay: money(why.payCents, lang), min: money(why.minCents, lang) });
      case "hourly":
        return why.outdated
          ? t("why.hourlyThen", { hourly: money(why.hourlyCents, lang) })
          : t("why.hourly", { hourly: money(why.hourlyCents, lang), min: money(why.minCents, lang) });
      case "buffer":
        return t(why.outdated ? "why.bufferThen" : "why.buffer", { minutes: Math.max(0, why.minutesAhead), buffer: why.bufferMinutes });
      case "day":
        return t("why.day", { weekday: weekdayName(why.weekday, lang) });
      case "duration":
        if (why.outdated) return t("why.durationThen", { length: lengthText(why.minutes, t) });
        return why.minMinutes > 0 && why.minutes < why.minMinutes
          ? t("why.durationShort", { length: lengthText(why.minutes, t), min: lengthText(why.minMinutes, t) })
          : t("why.durationLong", { length: lengthText(why.minutes, t), max: lengthText(why.maxMinutes, t) });
      case "daily_cap":
        return why.outdated ? t("why.daily_capThen") : t("why.daily_cap", { cap: lengthText(why.capMinutes, t) });
      default:
        return t(`why.${why.reason}`);
    }
  });
}

/** A reason by itself, without an offer's figures ("Pay under your minimum"): how many offers each turned down. */
export function reasonName(reason: string, t: TFunction<"driver">): string {
  return t(`why.names.${reason}`, { defaultValue: t("why.names.other") });
}
