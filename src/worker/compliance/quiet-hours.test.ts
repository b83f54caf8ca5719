import { describe, expect, it } from "vitest";
import { areaCodeOf, KNOWN_AREA_CODES, locationOf, UNKNOWN_LOCATION } from "./area-codes";
import { deferralByAreaCode, isAllowedAt, localParts, nextAllowedAt, ruleOfLocation, UNKNOWN_AREA_CODE, zonedTimeToUtc } from "./quiet-hours";
import { CANADA_RULE, REGION_RULES, STRICTEST_RULE, US_FEDERAL_RULE } from "./state-rules";

const utc = (iso: string) => Date.parse(`${iso}Z`);
const iso = (t: number) => new Date(t).toISOString().slice(0, 16);

// 2026: US and Canadian daylight time runs from Sunday 8 March to Sunday 1 November.
// Wednesday 15 July 2026, 22:00 in New York (EDT, UTC−4) = Thursday 16 July 02:00 UTC.
const JULY_22_EASTERN = utc("2026-07-16T02:00");

describe("area codes", () => {
  it("locate numbers by state, with every zone an area code spans", () => {
    expect(locationOf("+12125550100")).toEqual({ region: "NY", country: "US", zones: ["America/New_York"] });
    expect(locationOf("+18505550100").zones).toEqual(["America/New_York", "America/Chicago"]);
    expect(locationOf("+16025550100")).toEqual({ region: "AZ", country: "US", zones: ["America/Phoenix"] });
    expect(locationOf("+17095550100")).toEqual({ region: "NL", country: "CA", zones: ["America/St_Johns", "America/Halifax"] });
    expect(locationOf("+18085550100").zones).toEqual(["Pacific/Honolulu"]);
    expect(locationOf("+18765550100")).toBe(UNKNOWN_LOCATION); // Jamaica: not ours
    expect(locationOf("+18005550100")).toBe(UNKNOWN_LOCATION); // toll-free: nowhere in particular
    expect(areaCodeOf("+13055550100")).toBe("305");
    expect(areaCodeOf("not a phone")).toBeNull();
  });

  it("names only zones the runtime knows, and every area code once", () => {
    const zones = new Set(KNOWN_AREA_CODES.flatMap((c) => locationOf(`+1${c}5550100`).zones));
    for (const zone of zones) expect(() => localParts(0, zone)).not.toThrow();
    expect(new Set(KNOWN_AREA_CODES).size).toBe(KNOWN_AREA_CODES.length);
    expect(KNOWN_AREA_CODES.length).toBeGreaterThan(380);
  });
});

describe("state rules", () => {
  it("cite a statute on every line", () => {
    for (const rule of [US_FEDERAL_RULE, CANADA_RULE, STRICTEST_RULE, ...Object.values(REGION_RULES)]) expect(rule.cites).toMatch(/\S/);
    expect(REGION_RULES.FL!.cites).toContain("501.616");
    expect(REGION_RULES.OK!.cites).toContain("775C.4");
  });

  it("give Florida and Oklahoma 8 am–8 pm and three a day; the rest of the US 8 am–9 pm", () => {
    for (const state of ["FL", "OK"]) {
      expect(REGION_RULES[state]!.days.every((d) => d?.start === 480 && d.end === 1200)).toBe(true);
      expect(REGION_RULES[state]!.cap).toEqual({ max: 3, windowMs: 86_400_000 });
    }
    expect(ruleOfLocation(locationOf("+12125550100"))).toBe(US_FEDERAL_RULE);
    expect(ruleOfLocation(locationOf("+14165550100"))).toBe(CANADA_RULE);
    expect(ruleOfLocation(UNKNOWN_LOCATION)).toBe(STRICTEST_RULE);
  });
});

describe("zonedTimeToUtc", () => {
  it("uses the offset in force on the day, across daylight-saving changes", () => {
    expect(iso(zonedTimeToUtc(2026, 3, 7, 8 * 60, "America/New_York"))).toBe("2026-03-07T13:00"); // EST
    expect(iso(zonedTimeToUtc(2026, 3, 8, 8 * 60, "America/New_York"))).toBe("2026-03-08T12:00"); // EDT from 2 am that day
    expect(iso(zonedTimeToUtc(2026, 11, 1, 8 * 60, "America/New_York"))).toBe("2026-11-01T13:00"); // back to EST at 2 am
    expect(iso(zonedTimeToUtc(2026, 7, 16, 9 * 60 + 30, "America/St_Johns"))).toBe("2026-07-16T12:00"); // NDT, UTC−2:30
  });
});

describe("nextAllowedAt: a marketing message created at 22:00 Eastern", () => {
  it("reaches the Pacific now and the East at 8:00", () => {
    expect(nextAllowedAt("+14155550100", JULY_22_EASTERN)).toBe(JULY_22_EASTERN); // 19:00 PDT
    expect(iso(nextAllowedAt("+12125550100", JULY_22_EASTERN))).toBe("2026-07-16T12:00"); // 08:00 EDT
  });

  it("Arizona: Pacific's clock in summer, Mountain's in winter", () => {
    expect(nextAllowedAt("+16025550100", JULY_22_EASTERN)).toBe(JULY_22_EASTERN); // 19:00 MST
    // Wednesday 14 January 2026, 23:00 EST = 04:00 UTC: 21:00 in Phoenix, closed; opens 08:00 MST = 15:00 UTC.
    expect(iso(nextAllowedAt("+16025550100", utc("2026-01-15T04:00")))).toBe("2026-01-15T15:00");
    expect(nextAllowedAt("+16025550100", utc("2026-01-15T03:59"))).toBe(utc("2026-01-15T03:59"));
    // The Navajo Nation (928) keeps daylight time: in July both 8:00 MDT and 8:00 MST must have passed.
    expect(iso(nextAllowedAt("+19285550100", utc("2026-07-16T07:00")))).toBe("2026-07-16T15:00");
  });

  it("Hawaii: UTC−10 all year", () => {
    expect(nextAllowedAt("+18085550100", JULY_22_EASTERN)).toBe(JULY_22_EASTERN); // 16:00 HST
    expect(iso(nextAllowedAt("+18085550100", utc("2026-07-16T07:00")))).toBe("2026-07-16T18:00"); // 21:00 → 08:00 HST
    expect(iso(nextAllowedAt("+18085550100", utc("2026-12-16T07:00")))).toBe("2026-12-16T18:00"); // no daylight time
  });

  it("Newfoundland: half-hour zone, Canadian hours, and Labrador's Atlantic time in the same area code", () => {
    // Canada allows 9:00–21:30 on weekdays; 9:00 ADT (Labrador) = 9:30 NDT (the island).
    expect(iso(nextAllowedAt("+17095550100", JULY_22_EASTERN))).toBe("2026-07-16T12:00");
    const open = localParts(nextAllowedAt("+17095550100", JULY_22_EASTERN), "America/St_Johns");
    expect(open.minute).toBe(9 * 60 + 30);
    // Last allowed minute: 21:29 NDT = 23:59 UTC; 21:30 NDT is closed.
    const loc = locationOf("+17095550100");
    expect(isAllowedAt(loc, CANADA_RULE, utc("2026-07-16T23:59"))).toBe(true);
    expect(isAllowedAt(loc, CANADA_RULE, utc("2026-07-17T00:00"))).toBe(false);
  });

  it("daylight-saving days: 8:00 local is 12:00 UTC on the spring-forward Sunday and 13:00 UTC on the fall-back one", () => {
    expect(iso(nextAllowedAt("+12125550100", utc("2026-03-07T05:00")))).toBe("2026-03-07T13:00");
    expect(iso(nextAllowedAt("+12125550100", utc("2026-03-08T05:00")))).toBe("2026-03-08T12:00");
    expect(iso(nextAllowedAt("+12125550100", utc("2026-11-01T05:00")))).toBe("2026-11-01T13:00");
    // 20:59 EDT on Saturday 31 October is allowed; 21:00 waits for Sunday 8:00 EST.
    expect(nextAllowedAt("+12125550100", utc("2026-11-01T00:59"))).toBe(utc("2026-11-01T00:59"));
    expect(iso(nextAllowedAt("+12125550100", utc("2026-11-01T01:00")))).toBe("2026-11-01T13:00");
  });

  it("Florida closes at 8 pm; the panhandle waits for 8:00 Central", () => {
    const at2030 = utc("2026-07-16T00:30"); // 20:30 EDT
    expect(nextAllowedAt("+12125550100", at2030)).toBe(at2030);
    expect(iso(nextAllowedAt("+13055550100", at2030))).toBe("2026-07-16T12:00");
    expect(iso(nextAllowedAt("+18505550100", at2030))).toBe("2026-07-16T13:00"); // 08:00 CDT = 09:00 EDT
  });

  it("Texas: not before noon on Sunday", () => {
    expect(iso(nextAllowedAt("+12145550100", utc("2026-07-19T15:00")))).toBe("2026-07-19T17:00"); // Sun 10:00 → 12:00 CDT
    expect(nextAllowedAt("+12145550100", utc("2026-07-20T14:00"))).toBe(utc("2026-07-20T14:00")); // Mon 09:00 CDT
  });

  it("Canada: weekends 10:00–18:00", () => {
    // Saturday 18 July, 19:00 EDT in Toronto → Sunday 10:00 EDT.
    expect(iso(nextAllowedAt("+14165550100", utc("2026-07-18T23:00")))).toBe("2026-07-19T14:00");
  });

  it("an unknown area code waits until every rule and zone allows it", () => {
    const at = nextAllowedAt("+18765550100", JULY_22_EASTERN);
    expect(at).toBeGreaterThan(JULY_22_EASTERN);
    for (const zone of UNKNOWN_LOCATION.zones) {
      const p = localParts(at, zone);
      const w = STRICTEST_RULE.days[p.weekday]!;
      expect(p.minute).toBeGreaterThanOrEqual(w.start);
      expect(p.minute).toBeLessThan(w.end);
    }
  });
});

describe("deferralByAreaCode", () => {
  it("lists the area codes that must wait, with the instant they may be messaged", () => {
    const map = deferralByAreaCode(JULY_22_EASTERN);
    expect(map["415"]).toBeUndefined();
    expect(iso(map["212"]!)).toBe("2026-07-16T12:00");
    expect(iso(map["709"]!)).toBe("2026-07-16T12:00");
    expect(map[UNKNOWN_AREA_CODE]).toBeGreaterThan(JULY_22_EASTERN);
    for (const code of Object.keys(map)) {
      if (code === UNKNOWN_AREA_CODE) continue;
      expect(map[code]).toBe(nextAllowedAt(`+1${code}5550100`, JULY_22_EASTERN));
    }
  });
});
