import { describe, expect, it } from "vitest";
import { formatDDMMYY, isoDate } from "./dates";

// Worker tests run in UTC, so the local-time formatting is deterministic here.
describe("formatDDMMYY", () => {
  it("formats DD/MM/YY with zero padding", () => {
    expect(formatDDMMYY(Date.UTC(2026, 0, 5, 12))).toBe("05/01/26");
    expect(formatDDMMYY(Date.UTC(2026, 11, 31, 23, 59, 59, 999))).toBe("31/12/26");
    expect(formatDDMMYY(Date.UTC(2000, 1, 29))).toBe("29/02/00");
    expect(formatDDMMYY(Date.UTC(2009, 8, 9))).toBe("09/09/09");
  });

  it("answers null for no date and for an impossible one", () => {
    expect(formatDDMMYY(null)).toBeNull();
    expect(formatDDMMYY(undefined)).toBeNull();
    expect(formatDDMMYY(Number.NaN)).toBeNull();
    expect(formatDDMMYY(8.64e15 + 1)).toBeNull();
  });

  it("formats the epoch itself (0 is a date, not a missing one)", () => {
    expect(formatDDMMYY(0)).toBe("01/01/70");
  });
});

describe("isoDate", () => {
  it("is the UTC calendar day", () => {
    expect(isoDate(Date.UTC(2026, 2, 1, 0, 0, 0))).toBe("2026-03-01");
    expect(isoDate(Date.UTC(2026, 2, 1) - 1)).toBe("2026-02-28");
    expect(isoDate(0)).toBe("1970-01-01");
  });

  it("answers null for no date and for an impossible one", () => {
    expect(isoDate(null)).toBeNull();
    expect(isoDate(undefined)).toBeNull();
    expect(isoDate(Number.POSITIVE_INFINITY)).toBeNull();
  });
});
