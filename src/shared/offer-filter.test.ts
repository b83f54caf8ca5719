import { TZDate } from "@date-fns/tz";
import { describe, expect, it } from "vitest";
import { type CaptureFilters, evaluateOffer, type OfferToJudge, type Reason } from "./offer-filter";
import type { Weekday } from "./zoned-time";

const MIN = 60_000;
const HOUR = 60 * MIN;
const NY = "America/New_York";
const LA = "America/Los_Angeles";

const allDays = (windows: { start: string; end: string }[]): CaptureFilters["schedule"] =>
  Object.fromEntries((["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as Weekday[]).map((d) => [d, windows]));

/** Filters that take the base offer; each test changes one thing. */
function filters(over: Partial<CaptureFilters> = {}): CaptureFilters {
  return {
    stations: [{ id: "S1" }, { id: "S2", minPayCents: null, minHourlyCents: null }],
    minPayCents: 5000,
    minHourlyCents: 2000,
    arrivalBufferMinutes: 30,
    minDurationMinutes: 0,
    maxDurationMinutes: 0,
    schedule: allDays([{ start: "06:00", end: "22:00" }]),
    ...over,
  };
}

/** Wednesday 2026-06-10, 10:00–13:00 in New York, $72. */
const START = Date.parse("2026-06-10T10:00:00-04:00");
const NOW = START - 2 * HOUR;
function offer(over: Partial<OfferToJudge> = {}): OfferToJudge {
  return { stationId: "S1", startsAt: START, endsAt: START + 3 * HOUR, payCents: 7200, timeZone: NY, ...over };
}

const reasons = (o: OfferToJudge, f: CaptureFilters, now = NOW): Reason[] => evaluateOffer(o, f, now).reasons;

describe("evaluateOffer: the base case", () => {
  it("takes an offer that passes everything, with no reasons", () => {
    expect(evaluateOffer(offer(), filters(), NOW)).toEqual({ take: true, reasons: [] });
  });

  it("lists every reason that applies, in the documented order", () => {
    const f = filters({
      stations: [{ id: "S2" }],
      minPayCents: 10_000,
      minHourlyCents: 5000,
      arrivalBufferMinutes: 600,
      schedule: { thu: [{ start: "06:00", end: "22:00" }] },
      maxDurationMinutes: 60,
    });
    expect(evaluateOffer(offer(), f, NOW)).toEqual({ take: false, reasons: ["station", "pay", "hourly", "buffer", "day", "duration"] });
    // "window" replaces "day" when the weekday has windows.
    const g = { ...f, schedule: { wed: [{ start: "18:00", end: "20:00" }] } };
    expect(reasons(offer(), g)).toEqual(["station", "pay", "hourly", "buffer", "window", "duration"]);
  });
});

describe("station", () => {
  it("refuses a station that is not selected", () => {
    expect(reasons(offer({ stationId: "S9" }), filters())).toEqual(["station"]);
  });
  it("refuses everything when no station is selected", () => {
    expect(reasons(offer(), filters({ stations: [] }))).toEqual(["station"]);
  });
  it("matches ids exactly (no prefix or case folding)", () => {
    expect(reasons(offer({ stationId: "s1" }), filters())).toEqual(["station"]);
    expect(reasons(offer({ stationId: "S" }), filters())).toEqual(["station"]);
  });
  it("judges an unselected station against the global minimums", () => {
    const f = filters({ stations: [{ id: "S1", minPayCents: 100 }], minPayCents: 9000 });
    expect(reasons(offer({ stationId: "S9" }), f)).toEqual(["station", "pay"]);
  });
});

describe("pay", () => {
  it("takes pay equal to the minimum and refuses one cent less", () => {
    expect(reasons(offer({ payCents: 5000 }), filters({ minHourlyCents: 0 }))).toEqual([]);
    expect(reasons(offer({ payCents: 4999 }), filters({ minHourlyCents: 0 }))).toEqual(["pay"]);
  });
  it("a zero minimum takes any pay, even zero", () => {
    expect(reasons(offer({ payCents: 0 }), filters({ minPayCents: 0, minHourlyCents: 0 }))).toEqual([]);
  });
  it("a station's own minimum replaces the global one, up or down", () => {
    const higher = filters({ stations: [{ id: "S1", minPayCents: 8000 }] });
    expect(reasons(offer(), higher)).toEqual(["pay"]);
    const lower = filters({ stations: [{ id: "S1", minPayCents: 3000 }], minPayCents: 9000, minHourlyCents: 0 });
    expect(reasons(offer({ payCents: 3000 }), lower)).toEqual([]);
    expect(reasons(offer({ payCents: 2999 }), lower)).toEqual(["pay"]);
  });
  it("a station minimum of zero is set (it replaces the global one)", () => {
    expect(reasons(offer({ payCents: 10 }), filters({ stations: [{ id: "S1", minPayCents: 0, minHourlyCents: 0 }] }))).toEqual([]);
  });
  it("null or absent station minimums fall back to the global ones", () => {
    expect(reasons(offer({ stationId: "S2", payCents: 4999 }), filters({ minHourlyCents: 0 }))).toEqual(["pay"]);
    expect(reasons(offer({ stationId: "S1", payCents: 4999 }), filters({ minHourlyCents: 0 }))).toEqual(["pay"]);
  });
  it("only the offer's station counts", () => {
    const f = filters({ stations: [{ id: "S1" }, { id: "S2", minPayCents: 100 }], minHourlyCents: 0 });
    expect(reasons(offer({ payCents: 4000 }), f)).toEqual(["pay"]);
    expect(reasons(offer({ payCents: 4000, stationId: "S2" }), f)).toEqual([]);
  });
});

describe("hourly", () => {
  // 3 h at $72 = $24/h.
  it("takes exactly the minimum rate and refuses a cent below it", () => {
    expect(reasons(offer(), filters({ minHourlyCents: 2400 }))).toEqual([]);
    expect(reasons(offer(), filters({ minHourlyCents: 2401 }))).toEqual(["hourly"]);
    expect(reasons(offer({ payCents: 7199 }), filters({ minHourlyCents: 2400 }))).toEqual(["hourly"]);
  });
  it("uses the exact minutes, not rounded hours", () => {
    // 3 h 15 min at $72 = $22.15/h.
    const o = offer({ endsAt: START + 195 * MIN });
    expect(reasons(o, filters({ minHourlyCents: 2215 }))).toEqual([]);
    expect(reasons(o, filters({ minHourlyCents: 2216 }))).toEqual(["hourly"]);
  });
  it("a station's own hourly minimum replaces the global one", () => {
    expect(reasons(offer(), filters({ stations: [{ id: "S1", minHourlyCents: 3000 }] }))).toEqual(["hourly"]);
    expect(reasons(offer(), filters({ stations: [{ id: "S1", minHourlyCents: 1000 }], minHourlyCents: 9000 }))).toEqual([]);
  });
  it("pay and hourly are independent", () => {
    expect(reasons(offer({ payCents: 4000 }), filters({ minHourlyCents: 3000 }))).toEqual(["pay", "hourly"]);
  });
});

describe("buffer", () => {
  it("takes a block starting exactly the buffer from now and refuses one a millisecond sooner", () => {
    expect(reasons(offer(), filters({ arrivalBufferMinutes: 120 }))).toEqual([]);
    expect(reasons(offer(), filters({ arrivalBufferMinutes: 120 }), NOW + 1)).toEqual(["buffer"]);
  });
  it("a block already started fails any non-zero buffer", () => {
    expect(reasons(offer(), filters({ arrivalBufferMinutes: 1 }), START + MIN)).toEqual(["buffer"]);
    expect(reasons(offer(), filters({ arrivalBufferMinutes: 1 }), START)).toEqual(["buffer"]);
  });
  it("a zero buffer never refuses, even a block that started", () => {
    expect(reasons(offer(), filters({ arrivalBufferMinutes: 0 }), START + 30 * MIN)).toEqual([]);
  });
  it("does not wrap at 24 hours", () => {
    // Tomorrow at the same time plus 5 minutes: 24 h 5 min away, well past a 30-minute buffer.
    const tomorrow = offer({ startsAt: START + 24 * HOUR + 5 * MIN, endsAt: START + 27 * HOUR + 5 * MIN });
    expect(reasons(tomorrow, filters({ arrivalBufferMinutes: 30 }), START)).toEqual([]);
    // Just after midnight, twenty minutes from a now of 23:50: inside the buffer.
    const late = Date.parse("2026-06-10T23:50:00-04:00");
    const justAfterMidnight = offer({ startsAt: late + 20 * MIN, endsAt: late + 3 * HOUR + 20 * MIN });
    expect(reasons(justAfterMidnight, filters({ arrivalBufferMinutes: 30, schedule: allDays([{ start: "00:00", end: "00:00" }]) }), late)).toEqual(["buffer"]);
  });
  it("a buffer longer than a day still counts in full", () => {
    expect(reasons(offer(), filters({ arrivalBufferMinutes: 48 * 60 }))).toEqual(["buffer"]);
    expect(reasons(offer(), filters({ arrivalBufferMinutes: 48 * 60 }), START - 48 * HOUR)).toEqual([]);
  });
});

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

describe("duration", () => {
  it("zero limits allow any length", () => {
    expect(reasons(offer({ endsAt: START + 15 * MIN, payCents: 10_000 }), filters())).toEqual([]);
  });
  it("refuses a block shorter than a non-zero minimum; takes exactly the minimum", () => {
    expect(reasons(offer(), filters({ minDurationMinutes: 180 }))).toEqual([]);
    expect(reasons(offer(), filters({ minDurationMinutes: 181 }))).toEqual(["duration"]);
  });
  it("refuses a block longer than a non-zero maximum; takes exactly the maximum", () => {
    expect(reasons(offer(), filters({ maxDurationMinutes: 180 }))).toEqual([]);
    expect(reasons(offer(), filters({ maxDurationMinutes: 179 }))).toEqual(["duration"]);
  });
  it("lists duration once when both limits fail (min above max)", () => {
    expect(reasons(offer(), filters({ minDurationMinutes: 240, maxDurationMinutes: 120 }))).toEqual(["duration"]);
  });
  it("an end before the start is a negative length: under any minimum", () => {
    expect(reasons(offer({ endsAt: START - HOUR }), filters({ minDurationMinutes: 60 }))).toContain("duration");
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

describe("against an independent reading of the rules", () => {
  // A second implementation written differently (date-fns' TZDate for the clock, a minute-by-minute
  // walk for windows) cross-checks thousands of random offers, DST weeks included.
  const zones = [NY, LA, "America/Chicago", "America/Denver", "America/Phoenix", "America/St_Johns", "America/Santiago", "Pacific/Honolulu"];
  const days: Weekday[] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

  function reference(o: OfferToJudge, f: CaptureFilters, now: number): Reason[] {
    const out: Reason[] = [];
    const st = f.stations.filter((s) => s.id === o.stationId)[0];
    const minutes = (o.endsAt - o.startsAt) / MIN;
    if (st === undefined) out.push("station");
    const minPay = st && st.minPayCents !== null && st.minPayCents !== undefined ? st.minPayCents : f.minPayCents;
    if (o.payCents < minPay) out.push("pay");
    const minHourly = st && st.minHourlyCents !== null && st.minHourlyCents !== undefined ? st.minHourlyCents : f.minHourlyCents;
    if ((o.payCents / minutes) * 60 < minHourly - 1e-9 && minutes > 0) out.push("hourly");
    if (f.arrivalBufferMinutes !== 0 && o.startsAt < now + f.arrivalBufferMinutes * MIN) out.push("buffer");
    const local = new TZDate(o.startsAt, o.timeZone);
    const list = f.schedule[days[local.getDay()]!];
    const s = local.getHours() * 60 + local.getMinutes();
    if (!list || list.length === 0) out.push("day");
    else {
      const fits = list.some((w) => {
        const [sh, sm] = w.start.split(":").map(Number);
        const [eh, em] = w.end.split(":").map(Number);
        const from = sh! * 60 + sm!;
        let to = eh! * 60 + em!;
        if (to <= from) to += 1440;
        for (let m = s; m < s + minutes; m++) if (m < from || m + 1 > to) return false;
        return s >= from;
      });
      if (!fits) out.push("window");
    }
    if ((f.minDurationMinutes && minutes < f.minDurationMinutes) || (f.maxDurationMinutes && minutes > f.maxDurationMinutes)) out.push("duration");
    return out;
  }

  // A small deterministic generator, so a failure can be replayed.
  let seed = 20260308;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const clock = () => `${String(Math.floor(rand() * 24)).padStart(2, "0")}:${pick(["00", "15", "30", "45"])}`;

  it("agrees on 4000 random offers", () => {
    // Weeks around both 2026 US changes and Chile's, plus an ordinary one.
    const weeks = [
      Date.parse("2026-03-05T00:00:00Z"),
      Date.parse("2026-10-29T00:00:00Z"),
      Date.parse("2026-09-03T00:00:00Z"),
      Date.parse("2026-06-08T00:00:00Z"),
    ];
    for (let i = 0; i < 4000; i++) {
      const schedule: CaptureFilters["schedule"] = {};
      for (const d of days) if (rand() < 0.7) schedule[d] = Array.from({ length: 1 + Math.floor(rand() * 2) }, () => ({ start: clock(), end: clock() }));
      const f: CaptureFilters = {
        stations: [
          { id: "A", minPayCents: rand() < 0.5 ? Math.floor(rand() * 9000) : null },
          { id: "B", minHourlyCents: rand() < 0.5 ? Math.floor(rand() * 4000) : undefined },
        ],
        minPayCents: Math.floor(rand() * 9000),
        minHourlyCents: Math.floor(rand() * 4000),
        arrivalBufferMinutes: pick([0, 0, 15, 30, 45, 60, 120]),
        minDurationMinutes: pick([0, 0, 60, 120, 180]),
        maxDurationMinutes: pick([0, 0, 180, 240, 300]),
        schedule,
      };
      const startsAt = pick(weeks) + Math.floor(rand() * 7 * 96) * 15 * MIN;
      const o: OfferToJudge = {
        stationId: pick(["A", "B", "C"]),
        startsAt,
        endsAt: startsAt + pick([60, 90, 120, 150, 180, 210, 240, 270, 300, 360]) * MIN,
        payCents: 1800 + Math.floor(rand() * 12000),
        timeZone: pick(zones),
      };
      const now = startsAt - Math.floor(rand() * 4 * 60) * MIN;
      const got = evaluateOffer(o, f, now);
      const want = reference(o, f, now);
      expect(got.reasons, JSON.stringify({ o, f, now })).toEqual(want);
      expect(got.take).toBe(want.length === 0);
    }
  });
});
