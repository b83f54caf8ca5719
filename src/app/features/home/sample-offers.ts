import { type CaptureFilters, evaluateOffer, type Reason } from "../../../shared/offer-filter";

/**
 * The landing page's dashboard preview: sample filters and offers, with what the same evaluateOffer
 * the capture engine and the dashboard use says of each, so the "why not taken" shown is what the
 * product would really say. The page shows the judgments written down here (sample-offers.test.ts
 * holds them equal to evaluateOffer's) and clock times written without Intl: judging and formatting
 * read the time zone through Intl, and the first such formatter is a long task on a slow phone
 * (bench/README.md, Lighthouse), on the landing page's load path for nothing but constants.
 */
export const SAMPLE_TIME_ZONE = "America/New_York";
const at = (iso: string) => Date.parse(iso);
/** Monday 23 November 2026, 5:30 am in Miami. */
export const SAMPLE_NOW = at("2026-11-23T05:30:00-05:00");

export const SAMPLE_FILTERS: CaptureFilters = {
  stations: [{ id: "DMI2" }, { id: "DFL5" }],
  minPayCents: 6000,
  minHourlyCents: 2200,
  arrivalBufferMinutes: 45,
  minDurationMinutes: 120,
  maxDurationMinutes: 0,
  schedule: {
    mon: [{ start: "06:00", end: "14:00" }],
    tue: [{ start: "06:00", end: "14:00" }],
    wed: [{ start: "06:00", end: "14:00" }],
    thu: [{ start: "06:00", end: "14:00" }],
    fri: [{ start: "06:00", end: "14:00" }],
    sat: [{ start: "08:00", end: "12:00" }],
  },
};

export const STATION_NAMES: Record<string, string> = { DMI2: "Doral", DFL5: "Miami Gardens", DMF3: "Hialeah" };

type SampleOffer = { id: number; stationId: string; startsAt: number; endsAt: number; payCents: number; takenByOthers?: boolean };

const OFFERS: SampleOffer[] = [
  { id: 1, stationId: "DMI2", startsAt: at("2026-11-23T07:00:00-05:00"), endsAt: at("2026-11-23T10:30:00-05:00"), payCents: 8400 },
  { id: 2, stationId: "DMI2", startsAt: at("2026-11-23T06:00:00-05:00"), endsAt: at("2026-11-23T08:00:00-05:00"), payCents: 5000 },
  { id: 3, stationId: "DFL5", startsAt: at("2026-11-23T12:00:00-05:00"), endsAt: at("2026-11-23T16:00:00-05:00"), payCents: 9600 },
  { id: 4, stationId: "DMF3", startsAt: at("2026-11-23T08:00:00-05:00"), endsAt: at("2026-11-23T11:00:00-05:00"), payCents: 7500 },
  { id: 5, stationId: "DFL5", startsAt: at("2026-11-23T09:00:00-05:00"), endsAt: at("2026-11-23T12:00:00-05:00"), payCents: 9000, takenByOthers: true },
];

export type JudgedOffer = SampleOffer & { result: "won" | "disliked" | "gone"; reasons: Reason[]; hourlyCents: number };
type Judgment = { take: boolean; reasons: Reason[] };

const judge = (offer: SampleOffer, { take, reasons }: Judgment): JudgedOffer => {
  const hours = (offer.endsAt - offer.startsAt) / 3_600_000;
  return { ...offer, result: take ? (offer.takenByOthers ? "gone" : "won") : "disliked", reasons, hourlyCents: Math.round(offer.payCents / hours) };
};

/** The sample offers judged by evaluateOffer, now (the test compares the written-down judgments with these). */
export function judgedSampleOffers(): JudgedOffer[] {
  return OFFERS.map((offer) => judge(offer, evaluateOffer({ ...offer, timeZone: SAMPLE_TIME_ZONE }, SAMPLE_FILTERS, SAMPLE_NOW)));
}

/** What evaluateOffer says of each sample offer, by id. */
const JUDGMENTS: Record<number, Judgment> = {
  1: { take: true, reasons: [] },
  2: { take: false, reasons: ["pay", "buffer"] },
  3: { take: false, reasons: ["window"] },
  4: { take: false, reasons: ["station"] },
  5: { take: true, reasons: [] },
};

/** The sample offers as the landing page shows them: judgedSampleOffers() without judging on load. */
export const SAMPLE_OFFERS: JudgedOffer[] = OFFERS.map((offer) => judge(offer, JUDGMENTS[offer.id]!));

/** The sample zone's offset from UTC on the sample day (New York in November, standard time); the test checks it with Intl. */
export const SAMPLE_UTC_OFFSET_MINUTES = -5 * 60;

/**
 * A sample clock time in the sample zone as Intl writes it ({ hour: "numeric", minute: "2-digit" }):
 * "7:00 AM" in English (en-US), "7:00 a.m." in Spanish (es-US). The test compares both with Intl.
 */
export function sampleClock(epochMs: number, language: string): string {
  const local = new Date(epochMs + SAMPLE_UTC_OFFSET_MINUTES * 60_000);
  const hour = local.getUTCHours();
  const minute = String(local.getUTCMinutes()).padStart(2, "0");
  const half = language === "es" ? (hour < 12 ? "a.m." : "p.m.") : hour < 12 ? "AM" : "PM";
  return `${hour % 12 || 12}:${minute} ${half}`;
}
