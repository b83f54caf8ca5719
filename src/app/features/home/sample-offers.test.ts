import { describe, expect, it } from "vitest";
import { formatUsd } from "./api";
import { judgedSampleOffers, SAMPLE_OFFERS, SAMPLE_TIME_ZONE, SAMPLE_UTC_OFFSET_MINUTES, sampleClock } from "./sample-offers";

// The landing page shows written-down judgments and formats without Intl (sample-offers.ts): these
// hold them to what evaluateOffer and Intl say.
describe("the landing page's sample offers", () => {
  it("are shown as evaluateOffer judges them", () => {
    expect(SAMPLE_OFFERS).toEqual(judgedSampleOffers());
  });

  it("show every result and reasons", () => {
    const results = new Set(SAMPLE_OFFERS.map((offer) => offer.result));
    expect([...results].sort()).toEqual(["disliked", "gone", "won"]);
  });

  it("write clock times as Intl does in the sample zone, in both languages", () => {
    const instants = SAMPLE_OFFERS.flatMap((offer) => [offer.startsAt, offer.endsAt]);
    for (const [language, locale] of [
      ["en", "en-US"],
      ["es", "es-US"],
    ] as const) {
      const intl = new Intl.DateTimeFormat(locale, { hour: "numeric", minute: "2-digit", timeZone: SAMPLE_TIME_ZONE });
      for (const at of instants) expect(sampleClock(at, language)).toBe(intl.format(at));
    }
  });

  it("use the sample zone's real offset on the sample day", () => {
    const parts = new Intl.DateTimeFormat("en-US", { timeZone: SAMPLE_TIME_ZONE, timeZoneName: "longOffset" }).formatToParts(SAMPLE_OFFERS[0]!.startsAt);
    const offset = parts.find((part) => part.type === "timeZoneName")?.value;
    expect(offset).toBe(`GMT-0${-SAMPLE_UTC_OFFSET_MINUTES / 60}:00`);
  });
});

describe("formatUsd", () => {
  it("writes dollars as Intl does for en-US and es-US", () => {
    const amounts = [0, 1, 5, 99, 100, 105, 3999, 6000, 8400, 99_999, 100_000, 123_456_78, 100_000_000, 12.5, 1234.4999, -500, -1];
    for (const locale of ["en-US", "es-US"]) {
      const intl = new Intl.NumberFormat(locale, { style: "currency", currency: "USD" });
      for (const cents of amounts) expect(formatUsd(cents, locale === "es-US" ? "es" : "en")).toBe(intl.format(cents / 100));
    }
  });
});
