import { type CaptureFilters, evaluateOffer, type Reason } from "../../../shared/offer-filter";

/**
 * The landing page's dashboard preview: sample filters and offers, judged by the same
 * evaluateOffer the capture engine and the dashboard use, so the "why not taken" shown is what the
 * product would really say.
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

export function judgedSampleOffers(): JudgedOffer[] {
  return OFFERS.map((offer) => {
    const { take, reasons } = evaluateOffer({ ...offer, timeZone: SAMPLE_TIME_ZONE }, SAMPLE_FILTERS, SAMPLE_NOW);
    const hours = (offer.endsAt - offer.startsAt) / 3_600_000;
    return { ...offer, result: take ? (offer.takenByOthers ? "gone" : "won") : "disliked", reasons, hourlyCents: Math.round(offer.payCents / hours) };
  });
}
