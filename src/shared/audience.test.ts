import { describe, expect, it } from "vitest";
import { dayBounds, dayEnd, dayStart, driverAudienceSchema, invitationAudienceSchema } from "./audience";

const issuesOf = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) => result.error?.issues.map((i) => i.path.join("."));

describe("driverAudienceSchema", () => {
  it("defaults to Flex, everything, newest first, page 1 of 20, UTC", () => {
    expect(driverAudienceSchema.parse({})).toEqual({
      app: "flex",
      referral: [],
      region: [],
      goodStanding: "all",
      accountConnected: "all",
      setupComplete: "all",
      sort: "createdAt",
      dir: "desc",
      page: 1,
      pageSize: 20,
      tzOffsetMinutes: 0,
    });
  });

  it("reads a query string: numbers coerced, one or many values per list", () => {
    const f = driverAudienceSchema.parse({ page: "3", pageSize: "100", tzOffsetMinutes: "-330", region: "Miami", referral: ["A", "B", ""] });
    expect(f).toMatchObject({ page: 3, pageSize: 100, tzOffsetMinutes: -330, region: ["Miami"], referral: ["A", "B"] });
  });

  it("accepts only the product's page sizes", () => {
    for (const size of [20, 40, 60, 80, 100]) expect(driverAudienceSchema.safeParse({ pageSize: String(size) }).success).toBe(true);
    for (const size of ["0", "10", "50", "101", "1000", "abc", "20.5"])
      expect(issuesOf(driverAudienceSchema.safeParse({ pageSize: size })), size).toEqual(["pageSize"]);
  });

  it("refuses pages before the first and absurdly far ones", () => {
    expect(issuesOf(driverAudienceSchema.safeParse({ page: "0" }))).toEqual(["page"]);
    expect(issuesOf(driverAudienceSchema.safeParse({ page: "-1" }))).toEqual(["page"]);
    expect(issuesOf(driverAudienceSchema.safeParse({ page: "100001" }))).toEqual(["page"]);
    expect(driverAudienceSchema.safeParse({ page: "100000" }).success).toBe(true);
  });

  it("takes real calendar days only", () => {
    for (const day of ["2026-01-31", "2024-02-29", "2026-12-31", "1970-01-01"])
      expect(driverAudienceSchema.safeParse({ startDate: day }).success, day).toBe(true);
    for (const day of [
      "2026-02-29",
      "2026-02-30",
      "2026-04-31",
      "2026-13-01",
      "2026-00-10",
      "2026-01-00",
      "0050-01-01",
      "26-01-01",
      "2026-1-1",
      "2026/01/01",
      "2026-01-01T00:00",
      "",
    ]) {
      expect(issuesOf(driverAudienceSchema.safeParse({ startDate: day })), day).toEqual(["startDate"]);
    }
  });

  it("refuses a range that ends before it starts, and allows a one-day range", () => {
    expect(issuesOf(driverAudienceSchema.safeParse({ startDate: "2026-03-02", endDate: "2026-03-01" }))).toEqual(["endDate"]);
    expect(issuesOf(driverAudienceSchema.safeParse({ startExpirationDate: "2026-03-02", endExpirationDate: "2026-03-01" }))).toEqual(["endExpirationDate"]);
    expect(driverAudienceSchema.safeParse({ startDate: "2026-03-01", endDate: "2026-03-01" }).success).toBe(true);
  });

  it("takes yes/no/all only", () => {
    expect(driverAudienceSchema.parse({ goodStanding: "yes", accountConnected: "no", setupComplete: "all" })).toMatchObject({
      goodStanding: "yes",
      accountConnected: "no",
      setupComplete: "all",
    });
    expect(issuesOf(driverAudienceSchema.safeParse({ goodStanding: "true" }))).toEqual(["goodStanding"]);
  });

  it("bounds the time-zone offset to real zones (UTC−12 … UTC+14)", () => {
    expect(driverAudienceSchema.safeParse({ tzOffsetMinutes: "720" }).success).toBe(true);
    expect(driverAudienceSchema.safeParse({ tzOffsetMinutes: "-840" }).success).toBe(true);
    expect(issuesOf(driverAudienceSchema.safeParse({ tzOffsetMinutes: "841" }))).toEqual(["tzOffsetMinutes"]);
    expect(issuesOf(driverAudienceSchema.safeParse({ tzOffsetMinutes: "1.5" }))).toEqual(["tzOffsetMinutes"]);
  });

  it("bounds lists, list items and the search", () => {
    expect(issuesOf(driverAudienceSchema.safeParse({ referral: Array.from({ length: 101 }, (_, i) => `R${i}`) }))).toEqual(["referral"]);
    expect(driverAudienceSchema.safeParse({ region: Array.from({ length: 200 }, (_, i) => `R${i}`) }).success).toBe(true);
    expect(driverAudienceSchema.safeParse({ region: ["x".repeat(101)] }).success).toBe(false);
    expect(issuesOf(driverAudienceSchema.safeParse({ search: "x".repeat(101) }))).toEqual(["search"]);
  });

  it("sorts by the listed columns only", () => {
    for (const sort of ["name", "phone", "createdAt", "expirationAt", "region", "referral", "status"])
      expect(driverAudienceSchema.safeParse({ sort }).success).toBe(true);
    expect(issuesOf(driverAudienceSchema.safeParse({ sort: "password_hash" }))).toEqual(["sort"]);
    expect(issuesOf(driverAudienceSchema.safeParse({ dir: "up" }))).toEqual(["dir"]);
  });
});

describe("invitationAudienceSchema", () => {
  it("defaults to every invitation, page 1 of 20", () => {
    expect(invitationAudienceSchema.parse({})).toEqual({
      registered: "all",
      accountConnected: "all",
      setupComplete: "all",
      page: 1,
      pageSize: 20,
      tzOffsetMinutes: 0,
    });
  });

  it("checks its date range like the drivers' one", () => {
    expect(issuesOf(invitationAudienceSchema.safeParse({ startDate: "2026-05-02", endDate: "2026-05-01" }))).toEqual(["endDate"]);
    expect(issuesOf(invitationAudienceSchema.safeParse({ startDate: "2026-02-30" }))).toEqual(["startDate"]);
    expect(issuesOf(invitationAudienceSchema.safeParse({ registered: "maybe" }))).toEqual(["registered"]);
  });
});

describe("dayStart / dayEnd", () => {
  it("span the whole UTC day at offset 0", () => {
    expect(dayStart("2026-03-10", 0)).toBe(Date.UTC(2026, 2, 10));
    expect(dayEnd("2026-03-10", 0)).toBe(Date.UTC(2026, 2, 11) - 1);
  });

  it("follow the admin's zone: Date#getTimezoneOffset minutes (UTC − local)", () => {
    // New York in winter (UTC−5, offset +300): the day starts at 05:00 UTC.
    expect(dayStart("2026-01-15", 300)).toBe(Date.UTC(2026, 0, 15, 5));
    expect(dayEnd("2026-01-15", 300)).toBe(Date.UTC(2026, 0, 16, 5) - 1);
    // Kolkata (UTC+5:30, offset −330): the day starts at 18:30 UTC the day before.
    expect(dayStart("2026-01-15", -330)).toBe(Date.UTC(2026, 0, 14, 18, 30));
  });

  it("cross month, year and leap-day boundaries", () => {
    expect(dayEnd("2024-02-29", 0)).toBe(Date.UTC(2024, 2, 1) - 1);
    expect(dayEnd("2026-12-31", 0)).toBe(Date.UTC(2027, 0, 1) - 1);
    expect(dayStart("2026-01-01", 300)).toBe(Date.UTC(2026, 0, 1, 5));
  });

  it("make consecutive days meet with no gap and no overlap", () => {
    expect(dayEnd("2026-06-30", 240) + 1).toBe(dayStart("2026-07-01", 240));
  });

  describe("with an IANA zone: each day its own offset", () => {
    const NY = "America/New_York";
    it("matches the fixed offset on an ordinary day", () => {
      expect(dayStart("2026-01-15", NY)).toBe(dayStart("2026-01-15", 300));
      expect(dayStart("2026-07-15", NY)).toBe(dayStart("2026-07-15", 240));
      expect(dayStart("2026-01-15", "Asia/Kolkata")).toBe(Date.UTC(2026, 0, 14, 18, 30));
      expect(dayStart("2026-03-10", "UTC")).toBe(Date.UTC(2026, 2, 10));
    });

    it("gives the spring-forward day 23 hours and the fall-back day 25", () => {
      expect(dayStart("2026-03-08", NY)).toBe(Date.UTC(2026, 2, 8, 5));
      expect(dayEnd("2026-03-08", NY)).toBe(Date.UTC(2026, 2, 9, 4) - 1);
      expect(dayStart("2026-11-01", NY)).toBe(Date.UTC(2026, 10, 1, 4));
      expect(dayEnd("2026-11-01", NY)).toBe(Date.UTC(2026, 10, 2, 5) - 1);
    });

    it("keeps a range across a change exact at both ends, where one offset is an hour off at one", () => {
      // January in winter time, July in summer time: the old single offset (winter's 300) ends July an hour late.
      expect(dayStart("2026-01-15", NY)).toBe(Date.UTC(2026, 0, 15, 5));
      expect(dayEnd("2026-07-15", NY)).toBe(Date.UTC(2026, 6, 16, 4) - 1);
      expect(dayEnd("2026-07-15", 300)).toBe(Date.UTC(2026, 6, 16, 5) - 1);
    });

    it("starts a day whose midnight was skipped at its first real instant", () => {
      // Chile springs forward at midnight: 2026-09-06 00:00 (−04) does not exist; the day begins at 01:00 (−03).
      expect(dayStart("2026-09-06", "America/Santiago")).toBe(Date.UTC(2026, 8, 6, 4));
      expect(dayEnd("2026-09-05", "America/Santiago") + 1).toBe(dayStart("2026-09-06", "America/Santiago"));
    });

    it("makes consecutive days meet across every change of a year", () => {
      for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += 86_400_000) {
        const day = new Date(t).toISOString().slice(0, 10);
        const next = new Date(t + 86_400_000).toISOString().slice(0, 10);
        for (const zone of [NY, "Europe/Madrid", "America/Santiago", "Australia/Lord_Howe"]) {
          expect(dayEnd(day, zone) + 1, `${zone} ${day}`).toBe(dayStart(next, zone));
          const hours = (dayEnd(day, zone) + 1 - dayStart(day, zone)) / 3_600_000;
          expect([23, 23.5, 24, 24.5, 25], `${zone} ${day}`).toContain(hours);
        }
      }
    });

    it("is validated: a known zone passes, an unknown one is a field error", () => {
      expect(driverAudienceSchema.parse({ timeZone: "America/Mexico_City" }).timeZone).toBe("America/Mexico_City");
      expect(issuesOf(driverAudienceSchema.safeParse({ timeZone: "Mars/Olympus_Mons" }))).toEqual(["timeZone"]);
      expect(issuesOf(invitationAudienceSchema.safeParse({ timeZone: "x".repeat(65) }))).toEqual(["timeZone"]);
    });
  });
});

describe("dayBounds", () => {
  const daysFrom = (first: string, n: number) => {
    const days = [first];
    while (days.length < n) days.push(new Date(Date.parse(`${days.at(-1)}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10));
    return days;
  };

  // Zones whose changes fall at midnight (Havana, Santiago, Asunción), by 30 minutes (Lord Howe), or skip a whole day (Apia, 2011).
  it.each(["America/New_York", "America/Havana", "America/Santiago", "America/Asuncion", "Australia/Lord_Howe", "Asia/Kolkata", "UTC"])(
    "gives what dayStart and dayEnd give, day by day over two years, in %s",
    (zone) => {
      const days = daysFrom("2025-01-01", 730);
      expect(dayBounds(days, zone)).toEqual(days.map((d) => [dayStart(d, zone), dayEnd(d, zone)]));
    },
  );

  it("handles a skipped day, days that are not consecutive, fixed offsets and no days", () => {
    const apia = daysFrom("2011-12-25", 14);
    expect(dayBounds(apia, "Pacific/Apia")).toEqual(apia.map((d) => [dayStart(d, "Pacific/Apia"), dayEnd(d, "Pacific/Apia")]));
    const gaps = ["2026-03-01", "2026-03-08", "2026-03-09", "2026-11-01"];
    expect(dayBounds(gaps, "America/Chicago")).toEqual(gaps.map((d) => [dayStart(d, "America/Chicago"), dayEnd(d, "America/Chicago")]));
    expect(dayBounds(["2026-01-15", "2026-01-16"], 300)).toEqual([
      [Date.UTC(2026, 0, 15, 5), Date.UTC(2026, 0, 16, 5) - 1],
      [Date.UTC(2026, 0, 16, 5), Date.UTC(2026, 0, 17, 5) - 1],
    ]);
    expect(dayBounds([], "America/New_York")).toEqual([]);
  });
});
