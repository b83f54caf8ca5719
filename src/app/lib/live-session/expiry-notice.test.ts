import { describe, expect, it } from "vitest";
import { sameLocalDay } from "./expiry-notice";

describe("sameLocalDay", () => {
  const at = (y: number, m: number, d: number, h = 0, min = 0) => new Date(y, m - 1, d, h, min).getTime();
  it.each([
    ["the same instant", at(2026, 11, 27, 12), at(2026, 11, 27, 12), true],
    ["morning and night of one day", at(2026, 11, 27, 0, 1), at(2026, 11, 27, 23, 59), true],
    ["across midnight", at(2026, 11, 27, 23, 59), at(2026, 11, 28, 0, 1), false],
    ["the same day of another month", at(2026, 10, 27, 12), at(2026, 11, 27, 12), false],
    ["the same date of another year", at(2025, 11, 27, 12), at(2026, 11, 27, 12), false],
  ])("%s: %s", (_, a, b, same) => {
    expect(sameLocalDay(a, b)).toBe(same);
  });
});
