/**
 * The settings form's values (what the driver types: dollars, hours) and the filters the server
 * takes (cents, minutes), and back; validation is the shared schema's, its issues turned into
 * translation keys on the form's own fields.
 */
import { type DriverFilters, defaultDriverFilters, driverFiltersSchema } from "../../../shared/driver-filters";
import { z } from "../../../shared/zod";
import { WEEKDAYS, type Weekday } from "../../../shared/zoned-time";
import { dollarsText, hoursText, parseDollars, parseHours } from "./format";
import { fullWeek, type WeekSchedule } from "./ScheduleEditor";

/** A station as the form lists it: `timeZone` null until the driver chooses one (a station without one cannot be picked). */
export type StationOption = { id: string; name: string; timeZone: string | null };
export type StationChoice = StationOption & { selected: boolean; minPay: string; minHourly: string };

export type FiltersFormValues = {
  stations: StationChoice[];
  minPay: string;
  minHourly: string;
  buffer: string;
  minHours: string;
  maxHours: string;
  dailyCap: string;
  schedule: WeekSchedule;
};

/** Errors as translation keys: "stations" (the list), "stations.<i>.minPay", "minPay", "schedule", "schedule.<day>.<i>"… */
export type FormErrors = Record<string, string>;

export function toFormValues(stations: StationOption[], saved: DriverFilters | null): FiltersFormValues {
  const f = saved ?? { ...defaultDriverFilters(), stations: [] };
  return {
    stations: stations.map((s) => {
      const chosen = f.stations.find((x) => x.id === s.id);
      return {
        id: s.id,
        name: s.name,
        timeZone: s.timeZone,
        selected: Boolean(chosen),
        minPay: dollarsText(chosen?.minPayCents),
        minHourly: dollarsText(chosen?.minHourlyCents),
      };
    }),
    minPay: dollarsText(f.minPayCents),
    minHourly: dollarsText(f.minHourlyCents),
    buffer: String(f.arrivalBufferMinutes),
    minHours: hoursText(f.minDurationMinutes),
    maxHours: hoursText(f.maxDurationMinutes),
    dailyCap: hoursText(f.dailyCapMinutes),
    schedule: fullWeek(f.schedule),
  };
}

const FIELD_OF: Record<string, keyof FiltersFormValues> = {
  minPayCents: "minPay",
  minHourlyCents: "minHourly",
  arrivalBufferMinutes: "buffer",
  minDurationMinutes: "minHours",
  maxDurationMinutes: "maxHours",
  dailyCapMinutes: "dailyCap",
};

const key = (code: string) => `driver:errors.${code}`;
const KNOWN_CODES = new Set([
  "stations_required",
  "windows_required",
  "unknown_station",
  "duplicate_station",
  "too_many_stations",
  "too_many_windows",
  "clock",
  "min_above_max",
  "not_negative",
  "too_large",
  "whole_cents",
  "whole_minutes",
  "zone_needed",
]);
const codeKey = (message: string) => key(KNOWN_CODES.has(message) ? message : "invalid");

/** The days that have windows, as the filters keep them. */
function savedSchedule(schedule: WeekSchedule): Partial<Record<Weekday, { start: string; end: string }[]>> {
  return Object.fromEntries(WEEKDAYS.filter((d) => schedule[d].length > 0).map((d) => [d, schedule[d]]));
}

/** The form field a schedule issue belongs to: a window, a day, or the whole week. */
function scheduleField([a, b]: string[]): string {
  if (a !== undefined && b !== undefined) return `schedule.${a}.${b}`;
  if (a !== undefined) return `schedule.${a}`;
  return "schedule";
}

/** The filters the form says, or the errors that stop it. */
export function fromFormValues(values: FiltersFormValues): { filters: DriverFilters; errors: null } | { filters: null; errors: FormErrors } {
  const errors: FormErrors = {};
  const chosen = values.stations.map((s, index) => ({ s, index })).filter(({ s }) => s.selected);
  // The Worker refuses a station with no zone (its blocks' times could not be read): it is chosen first.
  for (const { s, index } of chosen) if (s.timeZone === null) errors[`stations.${index}.timeZone`] = key("zone_needed");
  const money = (text: string, field: string, optional: boolean): number | null => {
    if (optional && text.trim() === "") return null;
    const cents = parseDollars(text);
    if (cents === null) errors[field] = key("number");
    return cents;
  };
  const minutes = (text: string, field: string, parse: (t: string) => number | null): number => {
    const m = parse(text);
    if (m === null) errors[field] = key("number");
    return m ?? 0;
  };
  const candidate = {
    stations: chosen.map(({ s, index }) => ({
      id: s.id,
      minPayCents: money(s.minPay, `stations.${index}.minPay`, true),
      minHourlyCents: money(s.minHourly, `stations.${index}.minHourly`, true),
    })),
    minPayCents: money(values.minPay, "minPay", false) ?? 0,
    minHourlyCents: money(values.minHourly, "minHourly", false) ?? 0,
    arrivalBufferMinutes: minutes(values.buffer, "buffer", (t) => (/^\d+$/.test(t.trim()) ? Number(t.trim()) : null)),
    minDurationMinutes: minutes(values.minHours, "minHours", parseHours),
    maxDurationMinutes: minutes(values.maxHours, "maxHours", parseHours),
    dailyCapMinutes: minutes(values.dailyCap, "dailyCap", parseHours),
    schedule: savedSchedule(values.schedule),
  };
  const parsed = driverFiltersSchema.safeParse(candidate);
  if (parsed.success && Object.keys(errors).length === 0) return { filters: parsed.data, errors: null };
  for (const issue of parsed.success ? [] : parsed.error.issues) {
    const [head, a, b] = issue.path.map(String);
    let field: string;
    if (head === "stations" && a !== undefined && b !== undefined)
      field = `stations.${chosen[Number(a)]?.index ?? 0}.${b === "minPayCents" ? "minPay" : "minHourly"}`;
    else if (head === "stations") field = "stations";
    else if (head === "schedule") field = scheduleField(issue.path.slice(1).map(String));
    else field = FIELD_OF[head ?? ""] ?? "form";
    errors[field] ??= codeKey(issue.message);
  }
  return { filters: null, errors };
}

/** Each of the form's errors as a zod issue at its field, so react-hook-form's zod resolver puts it there. */
function reportErrors(errors: FormErrors, ctx: z.core.$RefinementCtx) {
  for (const [field, message] of Object.entries(errors)) ctx.addIssue({ code: "custom", path: field.split("."), message });
}

/** The settings form's schema (for `useSchemaForm`): its values in, the filters the server takes out. */
export const filtersFormSchema = z.custom<FiltersFormValues>().transform((values, ctx) => {
  const result = fromFormValues(values);
  if (result.errors === null) return result.filters;
  reportErrors(result.errors, ctx);
  return z.NEVER;
});

/** The calendar's windows form: the saved filters with a new week of windows, checked as the settings form checks them. */
export function windowsFormSchema(saved: DriverFilters) {
  return z.object({ schedule: z.custom<WeekSchedule>() }).transform(({ schedule }, ctx) => {
    const parsed = driverFiltersSchema.safeParse({ ...saved, schedule: savedSchedule(schedule) });
    if (parsed.success) return parsed.data;
    const errors: FormErrors = {};
    // Only the windows are editable here: anything else wrong with the saved set is said on the week.
    for (const issue of parsed.error.issues) {
      const [head, ...rest] = issue.path.map(String);
      errors[head === "schedule" ? scheduleField(rest) : "schedule"] ??= codeKey(issue.message);
    }
    reportErrors(errors, ctx);
    return z.NEVER;
  });
}
