import { describe, expect, it } from "vitest";
import { formatClock, instantAt, isKnownTimeZone, localReading, parseClock } from "./zoned-time";

describe("localReading", () => {
  it("reads weekday, date and minute in the zone", () => {
    expect(localReading(Date.parse("2026-06-15T03:30:00Z"), "America/Los_Angeles")).toEqual({
      weekday: "sun",
      year: 2026,
      month: 6,
      day: 14,
      minuteOfDay: 20 * 60 + 30,
    });
    expect(localReading(Date.parse("2026-06-15T03:30:00Z"), "UTC")).toEqual({ weekday: "mon", year: 2026, month: 6, day: 15, minuteOfDay: 210 });
  });
  it("midnight is minute 0, not 24:00", () => {
    expect(localReading(Date.parse("2026-06-15T04:00:00Z"), "America/New_York").minuteOfDay).toBe(0);
  });
  it("an unknown zone throws, every time", () => {
    expect(() => localReading(Date.parse("2026-06-15T03:30:00Z"), "Nowhere/Special")).toThrow(RangeError);
    expect(() => localReading(Date.parse("2026-06-15T03:30:00Z"), "Nowhere/Special")).toThrow(RangeError);
  });
  it("reads an offset with seconds (Liberia's before 1972) as Intl does", () => {
    // 12:00 UTC at -0:44:30 is 11:15:30.
    expect(localReading(Date.parse("1971-06-01T12:00:00Z"), "Africa/Monrovia").minuteOfDay).toBe(11 * 60 + 15);
  });
  it("answers as Intl does around every change of offset of a year, in zones with odd offsets and changes", () => {
    const formats = new Map<string, Intl.DateTimeFormat>();
    const options = { hourCycle: "h23", weekday: "short", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric" } as const;
    const intl = (t: number, timeZone: string) => {
      if (!formats.has(timeZone)) formats.set(timeZone, new Intl.DateTimeFormat("en-US", { timeZone, ...options }));
      const parts = formats.get(timeZone)!.formatToParts(t);
      const part = (type: string) => parts.find((p) => p.type === type)!.value;
      return {
        weekday: part("weekday").toLowerCase(),
        year: +part("year"),
        month: +part("month"),
        day: +part("day"),
        minuteOfDay: +part("hour") * 60 + +part("minute"),
      };
    };
    const zones = [
      "America/New_York",
      "America/Santiago",
      "America/St_Johns",
      "Asia/Kathmandu",
      "Australia/Lord_Howe",
      "Pacific/Chatham",
      "Europe/London",
      "Pacific/Apia",
    ];
    const STEP = 6 * 3_600_000;
    let changes = 0;
    for (const zone of zones) {
      const offset = (t: number) => {
        const r = intl(t, zone);
        return Date.UTC(r.year, r.month - 1, r.day, 0, r.minuteOfDay) - Math.floor(t / 60_000) * 60_000;
      };
      // 2011 holds Samoa's skipped day; 2026 the ordinary changes.
      for (const year of [2011, 2026]) {
        for (let t = Date.UTC(year, 0, 1); t < Date.UTC(year + 1, 0, 1); t += STEP) {
          expect(localReading(t, zone)).toEqual(intl(t, zone));
          if (offset(t) === offset(t + STEP)) continue;
          changes++;
          // Every minute of the six hours around the change, at some seconds past it.
          for (let u = t + 29_500; u < t + STEP; u += 60_000) expect(localReading(u, zone)).toEqual(intl(u, zone));
        }
      }
    }
    expect(changes).toBeGreaterThan(20);
  });
  it("knows which zones exist", () => {
    expect(isKnownTimeZone("America/Chicago")).toBe(true);
    expect(isKnownTimeZone("Nowhere/Special")).toBe(false);
  });
});

describe("clock text", () => {
  it("parses HH:MM strictly", () => {
    expect(parseClock("00:00")).toBe(0);
    expect(parseClock("23:59")).toBe(1439);
    for (const bad of ["24:00", "9:00", "12:60", "12:5", " 12:00", "ab:cd", ""]) expect(parseClock(bad)).toBeNull();
  });
  it("formats minutes, wrapping at a day", () => {
    expect(formatClock(0)).toBe("00:00");
    expect(formatClock(1439)).toBe("23:59");
    expect(formatClock(1440 + 90)).toBe("01:30");
  });
});

describe("instantAt", () => {
  it("an ordinary day", () => {
    expect(instantAt(2026, 6, 10, 600, "America/New_York")).toBe(Date.parse("2026-06-10T10:00:00-04:00"));
    expect(instantAt(2026, 1, 10, 600, "America/New_York")).toBe(Date.parse("2026-01-10T10:00:00-05:00"));
  });
  it("times on both sides of a change on the day itself", () => {
    expect(instantAt(2026, 3, 8, 60, "America/New_York")).toBe(Date.parse("2026-03-08T01:00:00-05:00"));
    expect(instantAt(2026, 3, 8, 180, "America/New_York")).toBe(Date.parse("2026-03-08T03:00:00-04:00"));
    expect(instantAt(2026, 3, 8, 0, "America/New_York")).toBe(Date.parse("2026-03-08T00:00:00-05:00"));
    expect(instantAt(2026, 3, 8, 1439, "America/New_York")).toBe(Date.parse("2026-03-08T23:59:00-04:00"));
  });
  it("a skipped time is read on the old offset", () => {
    expect(instantAt(2026, 3, 8, 150, "America/New_York")).toBe(Date.parse("2026-03-08T03:30:00-04:00"));
  });
  it("a repeated time is the first of the two", () => {
    expect(instantAt(2026, 11, 1, 90, "America/New_York")).toBe(Date.parse("2026-11-01T01:30:00-04:00"));
  });
  it("Chile's missing midnight", () => {
    expect(instantAt(2026, 9, 6, 0, "America/Santiago")).toBe(Date.parse("2026-09-06T04:00:00Z"));
    expect(instantAt(2026, 9, 6, 60, "America/Santiago")).toBe(Date.parse("2026-09-06T04:00:00Z"));
  });
  it("round-trips through localReading for every quarter hour of a DST week", () => {
    for (let t = Date.parse("2026-10-29T00:00:00Z"); t < Date.parse("2026-11-05T00:00:00Z"); t += 15 * 60_000) {
      const r = localReading(t, "America/Denver");
      const back = instantAt(r.year, r.month, r.day, r.minuteOfDay, "America/Denver");
      // The repeated hour maps back to its first occurrence.
      expect(t - back === 0 || t - back === 3_600_000).toBe(true);
    }
  });
});
