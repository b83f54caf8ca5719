import { afterEach, describe, expect, it, vi } from "vitest";
import { count, hourName, money, percent, shortDate, weekdayName, weekdayShort } from "./format";
import { blockSpan, clock, localDate } from "./station-time";

afterEach(() => vi.restoreAllMocks());

const LANGUAGES = [
  ["en", "en-US"],
  ["es", "es-US"],
] as const;

describe("driver formats without Intl", () => {
  it("write money as Intl does in en-US and es-US: whole dollars bare, others with their cents", () => {
    const amounts = [0, 1, 5, 99, 100, 105, 2740, 3999, 6000, 8400, 8450, 99_999, 100_000, 123_456_78, 100_000_000, -500, -1];
    for (const [lang, locale] of LANGUAGES) {
      for (const cents of amounts) {
        const intl = new Intl.NumberFormat(locale, { style: "currency", currency: "USD", minimumFractionDigits: cents % 100 === 0 ? 0 : 2 });
        expect(money(cents, lang)).toBe(intl.format(cents / 100));
      }
    }
    expect([money(8400, "en"), money(8450, "es")]).toEqual(["$84", "$84.50"]);
  });

  it("write counts and shares as Intl does", () => {
    const counts = [0, 1, 7, 10.5, 3.25, 999, 1000, 1234, 12_345.67, 1_000_000, 2.05, -3];
    const shares = [0, 0.004, 0.005, 0.25, 0.255, 0.5, 0.999, 1];
    for (const [lang, locale] of LANGUAGES) {
      const countIntl = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 });
      for (const n of counts) expect(count(n, lang)).toBe(countIntl.format(n));
      const percentIntl = new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 0 });
      for (const share of shares) expect(percent(share, lang)).toBe(percentIntl.format(share));
    }
  });

  it("write every hour, weekday and month as Intl does, whatever zone the browser is in", () => {
    for (const [lang, locale] of LANGUAGES) {
      const hour = new Intl.DateTimeFormat(locale, { hour: "numeric", timeZone: "UTC" });
      for (let h = 0; h < 24; h++) expect(hourName(h, lang)).toBe(hour.format(Date.UTC(2024, 0, 1, h)));
      const long = new Intl.DateTimeFormat(locale, { weekday: "long", timeZone: "UTC" });
      const short = new Intl.DateTimeFormat(locale, { weekday: "short", timeZone: "UTC" });
      ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].forEach((day, i) => {
        // 2024-01-01 was a Monday.
        expect(weekdayName(day, lang)).toBe(long.format(Date.UTC(2024, 0, 1 + i)));
        expect(weekdayShort(day, lang)).toBe(short.format(Date.UTC(2024, 0, 1 + i)));
      });
      const date = new Intl.DateTimeFormat(locale, { month: "short", day: "numeric", timeZone: "UTC" });
      for (let month = 1; month <= 12; month++) {
        for (const day of [1, 9, 28]) {
          const text = `2031-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
          expect(shortDate(text, lang)).toBe(date.format(Date.parse(`${text}T00:00:00Z`)));
        }
      }
    }
    expect([shortDate("2031-04-14", "en"), shortDate("2031-04-14", "es"), hourName(15, "es"), weekdayShort("sun", "es")]).toEqual([
      "Apr 14",
      "14 abr",
      "3 p.m.",
      "dom",
    ]);
  });

  it("build no Intl formatter", () => {
    const number = vi.spyOn(Intl, "NumberFormat");
    const date = vi.spyOn(Intl, "DateTimeFormat");
    money(1234, "es");
    count(1234, "en");
    percent(0.5, "en");
    hourName(3, "es");
    shortDate("2031-04-14", "en");
    weekdayName("mon", "es");
    expect([number.mock.calls.length, date.mock.calls.length]).toEqual([0, 0]);
  });
});

describe("station times", () => {
  it("write times and dates in the language and the station's zone", () => {
    const seven = Date.parse("2026-11-23T07:00:00-05:00");
    expect(clock(seven, "America/New_York", "en")).toBe("7:00 AM");
    expect(clock(seven, "America/Chicago", "en")).toBe("6:00 AM");
    expect(blockSpan(seven, seven + 3 * 3_600_000, "America/New_York", "en")).toBe("Mon, Nov 23, 7:00 AM – 10:00 AM EST");
    expect(localDate(Date.parse("2026-11-23T03:00:00Z"), "America/Los_Angeles")).toBe("2026-11-22");
  });

  it("build each formatter once (building is the slow part; a page of offers formats hundreds of values)", () => {
    const built = vi.spyOn(Intl, "DateTimeFormat");
    const at = Date.parse("2026-11-24T09:00:00-06:00");
    for (let i = 0; i < 20; i++) blockSpan(at + i * 60_000, at + 3_600_000, "America/Denver", "es");
    // Two shapes (the day and start, the end with its zone name): two formatters, not forty.
    expect(built.mock.calls.length).toBeLessThanOrEqual(2);
  });
});
