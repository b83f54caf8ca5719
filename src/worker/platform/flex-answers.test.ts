/**
 * Reading Flex's answers leniently (flex-answers.ts): what is needed is kept, an entry that cannot
 * be read is dropped without losing the others, and the schedule's assumed entries count as busy
 * time whenever they carry times.
 */
import { describe, expect, it } from "vitest";
import { epochMs, matchingAssignment, readAssignments, readOffers } from "./flex-answers";
import { displayName, stationArea, stationCode } from "./station-zones";

const offer = (over: Record<string, unknown> = {}) => ({
  offerId: "O1",
  serviceAreaId: "A1",
  startTime: 1767281400,
  endTime: 1767294000,
  expirationDate: 1767281400,
  rateInfo: { priceAmount: 91.5 },
  ...over,
});

describe("offers", () => {
  it("reads seconds (with a fraction or as a string) as ms, dollars as cents, and drops only the unreadable entries", () => {
    const list = readOffers({
      offerList: [
        offer(),
        offer({ offerId: "O2", startTime: 1767281400.75, endTime: "1767294000", rateInfo: { priceAmount: 45.255 }, hidden: true }),
        offer({ offerId: "O3", expirationDate: undefined }),
        offer({ offerId: "bad-times", startTime: "soon" }),
        offer({ offerId: "ends-before", endTime: 1767281000 }),
        { offerId: "no-pay", serviceAreaId: "A1", startTime: 1, endTime: 2 },
        "not an offer",
      ],
    });
    expect(list).toEqual([
      { id: "O1", stationId: "A1", startsAt: 1767281400000, endsAt: 1767294000000, payCents: 9150, expiresAt: 1767281400000, hidden: false },
      { id: "O2", stationId: "A1", startsAt: 1767281400750, endsAt: 1767294000000, payCents: 4526, expiresAt: 1767281400000, hidden: true },
      // No expiry given: listed until its block starts.
      { id: "O3", stationId: "A1", startsAt: 1767281400000, endsAt: 1767294000000, payCents: 9150, expiresAt: 1767281400000, hidden: false },
    ]);
    expect(readOffers({ offers: [] })).toBeNull();
  });

  it("epoch values: seconds or ms, never zero or nonsense", () => {
    expect(epochMs(1767281400)).toBe(1767281400000);
    expect(epochMs(1767281400123)).toBe(1767281400123);
    expect([epochMs(0), epochMs(""), epochMs(null), epochMs("x")]).toEqual([null, null, null, null]);
  });
});

describe("the schedule (entries' format assumed)", () => {
  it("keeps every entry with times, with its id, station and pay when it has them", () => {
    const blocks = readAssignments({
      scheduledAssignments: [
        { scheduledAssignmentId: "SA1", serviceAreaId: "A1", startTime: 1767281400, endTime: 1767294000, rateInfo: { priceAmount: 60 } },
        { assignmentId: "SA2", startTime: 1767300000, endTime: 1767310000 },
        { startTime: 1767320000, endTime: 1767330000 },
        { id: "no-times" },
      ],
    });
    expect(blocks).toEqual([
      { id: "SA1", offerId: null, stationId: "A1", startsAt: 1767281400000, endsAt: 1767294000000, payCents: 6000, arrivedAt: null },
      { id: "SA2", offerId: null, stationId: "", startsAt: 1767300000000, endsAt: 1767310000000, payCents: 0, arrivedAt: null },
      { id: null, offerId: null, stationId: "", startsAt: 1767320000000, endsAt: 1767330000000, payCents: 0, arrivedAt: null },
    ]);
    expect(readAssignments({ blocks: [] })).toBeNull();
  });

  it("a won block is the assignment with an id at its station and times", () => {
    const blocks = readAssignments({
      scheduledAssignments: [
        { startTime: 100, endTime: 200, serviceAreaId: "A1" },
        { scheduledAssignmentId: "other", startTime: 100, endTime: 200, serviceAreaId: "A2" },
        { scheduledAssignmentId: "mine", startTime: 100, endTime: 200, serviceAreaId: "A1" },
      ],
    })!;
    expect(matchingAssignment(blocks, { stationId: "A1", startsAt: 100_000, endsAt: 200_000 })?.id).toBe("mine");
    expect(matchingAssignment(blocks, { stationId: "A1", startsAt: 100_000, endsAt: 300_000 })).toBeUndefined();
  });
});

describe("station names and the station table", () => {
  it("drops the platform's suffix, finds the code, and knows the area's city and zone", () => {
    expect(displayName("Doral (DMI4) - Amazon.com")).toBe("Doral (DMI4)");
    expect(displayName("Warehouse Twelve")).toBe("Warehouse Twelve");
    expect(stationCode("Doral (DMI4)")).toBe("DMI4");
    expect(stationCode("Sub Same Day (Irvine) (DAX8)")).toBe("DAX8");
    expect(stationCode("Warehouse Twelve")).toBeNull();
    expect(stationArea("DMI4")).toEqual({ city: "Miami, FL", timeZone: "America/New_York" });
    expect(stationArea("dpx7")).toEqual({ city: "Phoenix, AZ", timeZone: "America/Phoenix" });
    expect(stationArea("XQZ1")).toBeNull();
    expect(stationArea(null)).toBeNull();
  });
});
