/**
 * The history of a busy driver for bench:insights: every offer their engine was shown over `days`
 * days (about 700 a day at four stations in three zones), recorded as the engine would have
 * recorded it under their filters: the offers are drawn first (each with the answer an accept would
 * have had: won, or taken first by someone else), then replayed under the driver's filters with
 * the engine's own rules, and each one the replay refuses is recorded disliked with its reasons. So
 * the history is what an engine with these filters leaves behind, and replaying it under them gives
 * it back. Seeded: the same arguments make the same history.
 */

import { prng } from "../scripts/seed/people.ts";
import type { DriverFilters } from "../src/shared/driver-filters.ts";
import type { HistoryOffer } from "../src/shared/insights.ts";
import { replayHistory } from "../src/shared/replay.ts";

export const BUSY_STATIONS = [
  { id: "DAX5", name: "Bench DAX5", timeZone: "America/New_York" },
  { id: "DJT6", name: "Bench DJT6", timeZone: "America/New_York" },
  { id: "DCH4", name: "Bench DCH4", timeZone: "America/Chicago" },
  { id: "DLA9", name: "Bench DLA9", timeZone: "America/Los_Angeles" },
];

const weekdays = ["mon", "tue", "wed", "thu", "fri"] as const;

/** The busy driver's filters: $25/hour, a 45-minute buffer, 06:00–22:00 weekdays and 08:00–20:00 weekends, 10 hours a day. */
export const BUSY_FILTERS: DriverFilters = {
  stations: BUSY_STATIONS.map((s) => ({ id: s.id, minHourlyCents: s.id === "DLA9" ? 2800 : null })),
  minPayCents: 4000,
  minHourlyCents: 2500,
  arrivalBufferMinutes: 45,
  minDurationMinutes: 0,
  maxDurationMinutes: 0,
  schedule: {
    ...Object.fromEntries(weekdays.map((d) => [d, [{ start: "06:00", end: "22:00" }]])),
    sat: [{ start: "08:00", end: "20:00" }],
    sun: [{ start: "08:00", end: "20:00" }],
  },
  dailyCapMinutes: 600,
};

/** The filters the bench asks about: a lower minimum, a shorter buffer, longer days. */
export const WHAT_IF_FILTERS: DriverFilters = {
  ...BUSY_FILTERS,
  stations: BUSY_STATIONS.map((s) => ({ id: s.id })),
  minHourlyCents: 2200,
  arrivalBufferMinutes: 30,
  schedule: { ...BUSY_FILTERS.schedule, sat: [{ start: "06:00", end: "22:00" }], sun: [{ start: "06:00", end: "22:00" }] },
  dailyCapMinutes: 720,
};

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const QUARTER = 15 * MINUTE;

/** About `offersPerDay` offers a day over the `days` days before `now`, in polls of one to six offers. */
export function busyHistory({ days, offersPerDay = 700, now, seed = 1 }: { days: number; offersPerDay?: number; now: number; seed?: number }): HistoryOffer[] {
  const rand = prng(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
  const drawn: HistoryOffer[] = [];
  const from = now - days * 24 * HOUR;
  // Polls with new offers come at random; 3.5 offers a poll on average.
  const meanGap = (24 * HOUR) / (offersPerDay / 3.5);
  for (let seenAt = from + Math.floor(rand() * meanGap); seenAt < now; seenAt += Math.max(1500, Math.floor(-Math.log(1 - rand()) * meanGap))) {
    const count = 1 + Math.floor(rand() * 6);
    for (let k = 0; k < count; k++) {
      const station = pick(BUSY_STATIONS);
      const startsAt = Math.ceil((seenAt + 20 * MINUTE + rand() * 72 * HOUR) / QUARTER) * QUARTER;
      const minutes = pick([120, 150, 180, 210, 240, 270]);
      const hourly = 1800 + rand() * 2200;
      const id = drawn.length + 1;
      // What an accept would have met: a third of the offers are taken first by someone else; one
      // block in twenty won is given back a few hours before it starts.
      const won = rand() >= 0.33;
      const given = won && rand() < 0.05 ? Math.max(seenAt + MINUTE, startsAt - Math.floor(rand() * 12 * HOUR)) : null;
      drawn.push({
        id,
        platformOfferId: `BO${seed}-${id}`,
        stationId: station.id,
        stationName: station.name,
        timeZone: station.timeZone,
        status: won ? "won" : "gone",
        reasons: [],
        payCents: Math.round((hourly * minutes) / 60 / 50) * 50,
        startsAt,
        endsAt: startsAt + minutes * MINUTE,
        blockId: null,
        forfeitedAt: given !== null && given < now ? given : null,
        arrivedAt: null,
        seenAt,
      });
    }
  }
  const { decisions } = replayHistory(drawn, BUSY_FILTERS);
  return drawn.map((offer, i) => {
    const d = decisions[i]!;
    if (d.status === "disliked") return { ...offer, status: "disliked", reasons: d.reasons, forfeitedAt: null };
    if (d.status === "gone") return offer;
    const arrived = offer.forfeitedAt === null && offer.startsAt < now;
    return { ...offer, blockId: `BB${seed}-${offer.id}`, arrivedAt: arrived ? offer.startsAt - 5 * MINUTE : null };
  });
}
