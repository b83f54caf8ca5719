import type { TFunction } from "i18next";
import type { Finding } from "../../../shared/insights";
import { count, hourName, money, percent } from "./format";

/**
 * A finding of the insights report as a sentence in the reader's language ("This week 180 offers
 * at DAX5 were under your $30/hour minimum; their median was $27.40/hour."): the Worker says what
 * it found and with which figures, the words are the SPA's.
 */
export function findingWords(finding: Finding, t: TFunction<"insights">, lang: string): string {
  switch (finding.kind) {
    case "under_hourly":
      return t("findings.under_hourly", {
        count: finding.count,
        n: count(finding.count, lang),
        station: finding.stationName,
        min: money(finding.minHourlyCents, lang),
        median: money(finding.medianHourlyCents, lang),
      });
    case "under_pay":
      return t("findings.under_pay", {
        count: finding.count,
        n: count(finding.count, lang),
        station: finding.stationName,
        min: money(finding.minPayCents, lang),
        median: money(finding.medianPayCents, lang),
      });
    case "outside_windows":
      return t("findings.outside_windows", { count: finding.count, n: count(finding.count, lang), median: money(finding.medianHourlyCents, lang) });
    case "buffer":
      return t("findings.buffer", { count: finding.count, n: count(finding.count, lang), buffer: finding.bufferMinutes });
    case "gone":
      return t("findings.gone", { count: finding.count, n: count(finding.count, lang), share: percent(finding.share, lang) });
    case "best_hour":
      return t("findings.best_hour", { station: finding.stationName, hour: hourName(finding.hour, lang), median: money(finding.medianHourlyCents, lang) });
  }
}
