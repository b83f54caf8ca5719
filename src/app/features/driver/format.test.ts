import { afterEach, describe, expect, it, vi } from "vitest";
import { blockSpan, clock, count, hourName, localDate, money, percent, shortDate, weekdayShort } from "./format";

afterEach(() => vi.restoreAllMocks());

describe("driver formats", () => {
  it("write money, times and dates in the language and the station's zone", () => {
    expect(money(8400, "en")).toBe("$84");
    expect(money(8450, "en")).toBe("$84.50");
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

  it("write the insights' counts, shares, weeks, hours and weekdays in either language", () => {
    expect([count(1234, "en"), count(10.5, "en"), count(1234, "es")]).toEqual(["1,234", "10.5", "1,234"]);
    expect([percent(0.25, "en"), percent(0.255, "es")]).toEqual(["25%", "26%"]);
    // A calendar date is that day wherever the browser is.
    expect([shortDate("2031-04-14", "en"), shortDate("2031-04-14", "es")]).toEqual(["Apr 14", "14 abr"]);
    expect([hourName(0, "en"), hourName(15, "en"), hourName(15, "es")]).toEqual(["12 AM", "3 PM", "3 p.m."]);
    expect([weekdayShort("mon", "en"), weekdayShort("sun", "es")]).toEqual(["Mon", "dom"]);
  });
});
