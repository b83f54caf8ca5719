/**
 * The driver's filters as the settings form and the Worker both validate them (one schema), and
 * how they become the CaptureFilters `evaluateOffer` judges with. Messages are codes the SPA
 * translates (filters.errors.<code>).
 */
import { z } from "zod";
import type { CaptureFilters } from "./offer-filter";
import { parseClock, WEEKDAYS, type Weekday } from "./zoned-time";

/** A filter set names at most this many stations (keeps each station query under D1's 100 bound parameters). */
export const MAX_STATIONS = 80;
export const MAX_WINDOWS_PER_DAY = 6;
const MAX_CENTS = 1_000_000;

const cents = z.number().int("whole_cents").min(0, "not_negative").max(MAX_CENTS, "too_large");
const clock = z.string().refine((s) => parseClock(s) !== null, "clock");

export const scheduleWindowSchema = z.object({ start: clock, end: clock });

export const stationFilterSchema = z.object({
  id: z.string().min(1).max(64),
  minPayCents: cents.nullish(),
  minHourlyCents: cents.nullish(),
});

export const scheduleSchema = z
  .object(
    Object.fromEntries(WEEKDAYS.map((d) => [d, z.array(scheduleWindowSchema).max(MAX_WINDOWS_PER_DAY, "too_many_windows").optional()])) as Record<
      Weekday,
      z.ZodOptional<z.ZodArray<typeof scheduleWindowSchema>>
    >,
  )
  .strict();

export const driverFiltersSchema = z
  .object({
    stations: z
      .array(stationFilterSchema)
      .min(1, "stations_required")
      .max(MAX_STATIONS, "too_many_stations")
      .refine((list) => new Set(list.map((s) => s.id)).size === list.length, "duplicate_station"),
    minPayCents: cents,
    minHourlyCents: cents,
    arrivalBufferMinutes: z
      .number()
      .int("whole_minutes")
      .min(0, "not_negative")
      .max(24 * 60, "too_large"),
    minDurationMinutes: z
      .number()
      .int("whole_minutes")
      .min(0, "not_negative")
      .max(24 * 60, "too_large"),
    maxDurationMinutes: z
      .number()
      .int("whole_minutes")
      .min(0, "not_negative")
      .max(24 * 60, "too_large"),
    schedule: scheduleSchema,
    /** At most this many minutes of blocks per station-local day; 0 = no cap. */
    dailyCapMinutes: z
      .number()
      .int("whole_minutes")
      .min(0, "not_negative")
      .max(24 * 60, "too_large"),
  })
  .refine((f) => f.minDurationMinutes === 0 || f.maxDurationMinutes === 0 || f.minDurationMinutes <= f.maxDurationMinutes, {
    message: "min_above_max",
    path: ["maxDurationMinutes"],
  })
  .refine((f) => WEEKDAYS.some((d) => (f.schedule[d]?.length ?? 0) > 0), { message: "windows_required", path: ["schedule"] });

export type DriverFilters = z.infer<typeof driverFiltersSchema>;

/** What a new driver's form starts from: every weekday 06:00–22:00, no minimums, a 30-minute buffer. */
export function defaultDriverFilters(): Omit<DriverFilters, "stations"> & { stations: DriverFilters["stations"] } {
  return {
    stations: [],
    minPayCents: 0,
    minHourlyCents: 0,
    arrivalBufferMinutes: 30,
    minDurationMinutes: 0,
    maxDurationMinutes: 0,
    schedule: Object.fromEntries(WEEKDAYS.map((d) => [d, [{ start: "06:00", end: "22:00" }]])),
    dailyCapMinutes: 0,
  };
}

export function toCaptureFilters(f: DriverFilters): CaptureFilters {
  return {
    stations: f.stations,
    minPayCents: f.minPayCents,
    minHourlyCents: f.minHourlyCents,
    arrivalBufferMinutes: f.arrivalBufferMinutes,
    minDurationMinutes: f.minDurationMinutes,
    maxDurationMinutes: f.maxDurationMinutes,
    schedule: f.schedule,
  };
}
