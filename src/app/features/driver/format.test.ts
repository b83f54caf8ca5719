import { afterEach, describe, expect, it, vi } from "vitest";
import { blockSpan, clock, localDate, money } from "./format";

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
});
