import { TZDate } from "@date-fns/tz";
import { describe, expect, it } from "vitest";
import { type CaptureFilters, evaluateOffer, type OfferToJudge, type Reason } from "./offer-filter";
import { allDays, filters, HOUR, LA, MIN, NOW, NY, offer, reasons, START } from "./test/offer-filter-cases";
import type { Weekday } from "./zoned-time";

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
