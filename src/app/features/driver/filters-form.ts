/**
 * The settings form's values (what the driver types: dollars, hours) and the filters the server
 * takes (cents, minutes), and back; validation is the shared schema's, its issues turned into
 * translation keys on the form's own fields.
 */
import { type DriverFilters, defaultDriverFilters, driverFiltersSchema } from "../../../shared/driver-filters";
import type { Weekday } from "../../../shared/offer-filter";
import { WEEKDAYS } from "../../../shared/zoned-time";
import { dollarsText, hoursText, parseDollars, parseHours } from "./format";
import { fullWeek, type WeekSchedule } from "./ScheduleEditor";

export type StationChoice = { id: string; name: string; region: string; timeZone: string; selected: boolean; minPay: string; minHourly: string };

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

export function toFormValues(stations: { id: string; name: string; region: string; timeZone: string }[], saved: DriverFilters | null): FiltersFormValues {
  const f = saved ?? { ...defaultDriverFilters(), stations: [] };
  return {
    stations: stations.map((s) => {
      const chosen = f.stations.find((x) => x.id === s.id);
      return { ...s, selected: Boolean(chosen), minPay: dollarsText(chosen?.minPayCents), minHourly: dollarsText(chosen?.minHourlyCents) };
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
]);
const codeKey = (message: string) => key(KNOWN_CODES.has(message) ? message : "invalid");

/** The filters the form says, or the errors that stop it. */
export function fromFormValues(values: FiltersFormValues): { filters: DriverFilters; errors: null } | { filters: null; errors: FormErrors } {
  const errors: FormErrors = {};
  const chosen = values.stations.map((s, index) => ({ s, index })).filter(({ s }) => s.selected);
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
    schedule: Object.fromEntries(WEEKDAYS.filter((d) => values.schedule[d].length > 0).map((d) => [d, values.schedule[d]])) as Partial<
      Record<Weekday, { start: string; end: string }[]>
    >,
  };
  const parsed = driverFiltersSchema.safeParse(candidate);
  if (parsed.success && Object.keys(errors).length === 0) return { filters: parsed.data, errors: null };
  for (const issue of parsed.success ? [] : parsed.error.issues) {
    const [head, a, b, c] = issue.path.map(String);
    let field: string;
    if (head === "stations" && a !== undefined && b !== undefined)
      field = `stations.${chosen[Number(a)]?.index ?? 0}.${b === "minPayCents" ? "minPay" : "minHourly"}`;
    else if (head === "stations") field = "stations";
    else if (head === "schedule" && a !== undefined && b !== undefined) field = `schedule.${a}.${b}`;
    else if (head === "schedule" && a !== undefined && c === undefined) field = `schedule.${a}`;
    else if (head === "schedule") field = "schedule";
    else field = FIELD_OF[head ?? ""] ?? "form";
    errors[field] ??= codeKey(issue.message);
  }
  return { filters: null, errors };
}
