import { describe, expect, it } from "vitest";
import { evaluateOffer } from "./offer-filter";
import { allDays, filters, HOUR, LA, MIN, NOW, NY, offer, reasons, START } from "./test/offer-filter-cases";

describe("day and window", () => {
  it("refuses a weekday with no windows (absent, or an empty list) as 'day'", () => {
    expect(reasons(offer(), filters({ schedule: { mon: [{ start: "06:00", end: "22:00" }] } }))).toEqual(["day"]);
    expect(reasons(offer(), filters({ schedule: { wed: [] } }))).toEqual(["day"]);
    expect(reasons(offer(), filters({ schedule: {} }))).toEqual(["day"]);
  });
  it("takes a block that exactly fills a window, refuses one a minute early or late", () => {
    const f = filters({ schedule: { wed: [{ start: "10:00", end: "13:00" }] } });
    expect(reasons(offer(), f)).toEqual([]);
    expect(reasons(offer({ startsAt: START - MIN, endsAt: START + 3 * HOUR - MIN }), f)).toEqual(["window"]);
    expect(reasons(offer({ startsAt: START + MIN, endsAt: START + 3 * HOUR + MIN }), f)).toEqual(["window"]);
  });
  it("any one window of the day may hold the block", () => {
    const f = filters({
      schedule: {
        wed: [
          { start: "06:00", end: "09:00" },
          { start: "09:30", end: "14:00" },
        ],
      },
    });
    expect(reasons(offer(), f)).toEqual([]);
  });
  it("a block spanning two adjacent windows is held by neither", () => {
    const f = filters({
      schedule: {
        wed: [
          { start: "09:00", end: "11:00" },
          { start: "11:00", end: "14:00" },
        ],
      },
    });
    expect(reasons(offer(), f)).toEqual(["window"]);
  });
  it("an overnight window (end before start) runs past midnight", () => {
    const f = filters({ minHourlyCents: 0, schedule: { wed: [{ start: "22:00", end: "06:00" }] } });
    const night = Date.parse("2026-06-10T23:00:00-04:00");
    expect(reasons(offer({ startsAt: night, endsAt: night + 7 * HOUR }), f, NOW)).toEqual([]);
    expect(reasons(offer({ startsAt: night, endsAt: night + 7 * HOUR + MIN }), f, NOW)).toEqual(["window"]);
    // Before its start on the same day: not held.
    expect(reasons(offer({ startsAt: night - 2 * HOUR, endsAt: night }), f, NOW)).toEqual(["window"]);
  });
  it("a block starting after midnight belongs to the next day's windows, not to an overnight window of the day before", () => {
    const f = filters({ schedule: { wed: [{ start: "22:00", end: "06:00" }] } });
    const thursdayTwoAm = Date.parse("2026-06-11T02:00:00-04:00");
    expect(reasons(offer({ startsAt: thursdayTwoAm, endsAt: thursdayTwoAm + 2 * HOUR }), f, NOW)).toEqual(["day"]);
    const g = filters({ schedule: { wed: [{ start: "22:00", end: "06:00" }], thu: [{ start: "00:00", end: "06:00" }] } });
    expect(reasons(offer({ startsAt: thursdayTwoAm, endsAt: thursdayTwoAm + 2 * HOUR }), g, NOW)).toEqual([]);
  });
  it("'00:00'–'00:00' is the whole day: any block that ends by midnight", () => {
    const f = filters({ minHourlyCents: 0, schedule: { wed: [{ start: "00:00", end: "00:00" }] } });
    const midnight = Date.parse("2026-06-10T00:00:00-04:00");
    expect(reasons(offer({ startsAt: midnight, endsAt: midnight + 24 * HOUR }), f, midnight - HOUR)).toEqual([]);
    expect(reasons(offer({ startsAt: midnight + 21 * HOUR, endsAt: midnight + 24 * HOUR }), f, midnight)).toEqual([]);
    expect(reasons(offer({ startsAt: midnight + 22 * HOUR, endsAt: midnight + 26 * HOUR }), f, midnight)).toEqual(["window"]);
  });
  it("a window ending at 00:00 runs to midnight", () => {
    const f = filters({ minHourlyCents: 0, schedule: { wed: [{ start: "18:00", end: "00:00" }] } });
    const six = Date.parse("2026-06-10T18:00:00-04:00");
    expect(reasons(offer({ startsAt: six, endsAt: six + 6 * HOUR }), f)).toEqual([]);
    expect(reasons(offer({ startsAt: six, endsAt: six + 6 * HOUR + MIN }), f)).toEqual(["window"]);
  });
  it("a window whose start equals its end (other than midnight) is a whole day from that time", () => {
    const f = filters({ minHourlyCents: 0, schedule: { wed: [{ start: "10:00", end: "10:00" }] } });
    expect(reasons(offer({ endsAt: START + 24 * HOUR }), f)).toEqual([]);
    expect(reasons(offer({ endsAt: START + 24 * HOUR + MIN }), f)).toEqual(["window"]);
  });
  it("a malformed window holds nothing", () => {
    expect(reasons(offer(), filters({ schedule: { wed: [{ start: "9:00", end: "25:00" }] } }))).toEqual(["window"]);
  });
  it("reads the weekday and time in the station's zone, not UTC or the server's", () => {
    // Sunday 20:00 in Los Angeles is Monday 03:00 UTC and Sunday 23:00 in New York.
    const sundayEvening = Date.parse("2026-06-14T20:00:00-07:00");
    const o = { stationId: "S1", startsAt: sundayEvening, endsAt: sundayEvening + 2 * HOUR, payCents: 7200 };
    const sundayOnly = filters({ schedule: { sun: [{ start: "18:00", end: "23:00" }] } });
    expect(reasons({ ...o, timeZone: LA }, sundayOnly, NOW)).toEqual([]);
    expect(reasons({ ...o, timeZone: NY }, sundayOnly, NOW)).toEqual(["window"]);
    expect(reasons({ ...o, timeZone: "UTC" }, sundayOnly, NOW)).toEqual(["day"]);
  });
  it("handles zones with half-hour offsets", () => {
    // 08:00 in St. John's (UTC−2:30 in summer) is 10:30 UTC.
    const stJohns = Date.parse("2026-06-10T08:00:00-02:30");
    const f = filters({ schedule: { wed: [{ start: "08:00", end: "10:00" }] } });
    expect(reasons(offer({ startsAt: stJohns, endsAt: stJohns + 2 * HOUR, timeZone: "America/St_Johns" }), f, stJohns - 2 * HOUR)).toEqual([]);
    expect(reasons(offer({ startsAt: stJohns, endsAt: stJohns + 2 * HOUR, timeZone: "America/Halifax" }), f, stJohns - 2 * HOUR)).toEqual(["window"]);
  });
  it("throws for a zone the runtime does not know", () => {
    expect(() => evaluateOffer(offer({ timeZone: "Mars/Olympus_Mons" }), filters(), NOW)).toThrow(RangeError);
  });
});

describe("daylight-saving days", () => {
  // New York springs forward on 2026-03-08 at 02:00 (to 03:00) and falls back on 2026-11-01 at 02:00 (to 01:00).
  it("spring forward: 01:00–04:00 on the clock is two real hours, judged as such", () => {
    const start = Date.parse("2026-03-08T01:00:00-05:00");
    const end = Date.parse("2026-03-08T04:00:00-04:00");
    expect((end - start) / HOUR).toBe(2);
    const o = offer({ startsAt: start, endsAt: end, payCents: 5000 });
    // $50 over 2 real hours is $25/h: passes a $25 minimum (over 3 clock hours it would not).
    expect(reasons(o, filters({ minHourlyCents: 2500, arrivalBufferMinutes: 0, schedule: { sun: [{ start: "01:00", end: "03:00" }] } }), start - HOUR)).toEqual(
      [],
    );
    expect(
      reasons(o, filters({ minDurationMinutes: 180, arrivalBufferMinutes: 0, schedule: { sun: [{ start: "00:00", end: "00:00" }] } }), start - HOUR),
    ).toEqual(["duration"]);
  });
  it("fall back: 01:00 EDT–03:00 EST is three real hours and does not fit a 01:00–03:00 window", () => {
    const start = Date.parse("2026-11-01T01:00:00-04:00");
    const end = Date.parse("2026-11-01T03:00:00-05:00");
    expect((end - start) / HOUR).toBe(3);
    const o = offer({ startsAt: start, endsAt: end, payCents: 9000 });
    const f = filters({ arrivalBufferMinutes: 0, schedule: { sun: [{ start: "01:00", end: "03:00" }] } });
    expect(reasons(o, f, start - HOUR)).toEqual(["window"]);
    expect(reasons(o, { ...f, schedule: { sun: [{ start: "01:00", end: "04:00" }] } }, start - HOUR)).toEqual([]);
  });
  it("fall back: the repeated 01:30 (EST) reads as 01:30 too", () => {
    const second = Date.parse("2026-11-01T01:30:00-05:00");
    const f = filters({ arrivalBufferMinutes: 0, schedule: { sun: [{ start: "01:30", end: "03:00" }] } });
    expect(reasons(offer({ startsAt: second, endsAt: second + 90 * MIN }), f, second - HOUR)).toEqual([]);
    expect(reasons(offer({ startsAt: second - MIN, endsAt: second + 90 * MIN }), f, second - HOUR)).toEqual(["window"]);
  });
  it("the buffer counts real time across the change", () => {
    // 00:30 to 03:30 on the spring-forward clock is two real hours: a 150-minute buffer refuses it.
    const now = Date.parse("2026-03-08T00:30:00-05:00");
    const start = Date.parse("2026-03-08T03:30:00-04:00");
    const f = filters({ arrivalBufferMinutes: 150, schedule: allDays([{ start: "00:00", end: "00:00" }]) });
    expect(reasons(offer({ startsAt: start, endsAt: start + HOUR }), f, now)).toEqual(["buffer"]);
    expect(reasons(offer({ startsAt: start, endsAt: start + HOUR }), { ...f, arrivalBufferMinutes: 120 }, now)).toEqual([]);
  });
  it("Chile skips midnight: the first instant of the Sunday reads as Sunday 01:00", () => {
    // America/Santiago moves from −04 to −03 at 2026-09-06 00:00, so the day starts at 01:00.
    const firstInstant = Date.parse("2026-09-06T04:00:00Z");
    const o = offer({ startsAt: firstInstant, endsAt: firstInstant + 2 * HOUR, timeZone: "America/Santiago" });
    const f = filters({ arrivalBufferMinutes: 0 });
    expect(reasons(o, { ...f, schedule: { sun: [{ start: "01:00", end: "03:00" }] } }, NOW)).toEqual([]);
    expect(reasons(o, { ...f, schedule: { sat: [{ start: "00:00", end: "00:00" }] } }, NOW)).toEqual(["day"]);
  });
  it("the weekday across a DST change is still the station's calendar day", () => {
    // 23:30 Saturday 2026-03-07 in New York (EST) is 04:30 Sunday UTC.
    const saturdayLate = Date.parse("2026-03-07T23:30:00-05:00");
    const o = offer({ startsAt: saturdayLate, endsAt: saturdayLate + 30 * MIN });
    expect(reasons(o, filters({ arrivalBufferMinutes: 0, schedule: { sat: [{ start: "23:00", end: "00:00" }] } }), NOW)).toEqual([]);
  });
});
