/**
 * How the driver screens write money, counts, shares, hours of the day and the names of weekdays
 * and months, in the interface's language (en-US, es-US), and read the amounts and lengths typed
 * into the filters. Written by hand, not through Intl: the first Intl formatter a page builds loads
 * the browser's locale data, a long task on a slow phone, and the insights page, pre-rendered,
 * needs none. Tests hold every writer equal to Intl in both
 * languages. Times in a station's zone are in station-time.ts.
 */
import type { TFunction } from "i18next";

const spanish = (lang: string) => lang === "es";
/** Thousands with commas, as en-US and es-US both group. */
const grouped = (whole: number) => String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/** Dollars: whole ones bare ("$84"), others with their cents ("$84.50"); the same in en-US and es-US. */
export function money(cents: number, _lang: string): string {
  const whole = Math.round(Math.abs(cents));
  const sign = cents < 0 && whole > 0 ? "-" : "";
  const dollars = grouped(Math.floor(whole / 100));
  return whole % 100 === 0 ? `${sign}$${dollars}` : `${sign}$${dollars}.${String(whole % 100).padStart(2, "0")}`;
}

/** A whole count as the language writes it ("1,234"); a fraction keeps one decimal ("12.5"). */
export function count(n: number, _lang: string): string {
  const tenths = Math.round(Math.abs(n) * 10);
  const sign = n < 0 && tenths > 0 ? "-" : "";
  const whole = grouped(Math.floor(tenths / 10));
  return tenths % 10 === 0 ? `${sign}${whole}` : `${sign}${whole}.${tenths % 10}`;
}

/** A share (0–1) as a percentage: "42%". */
export function percent(share: number, _lang: string): string {
  return `${Math.round(share * 100)}%`;
}

const WEEKDAY_KEYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
const WEEKDAYS = {
  en: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
  es: ["lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"],
};
const WEEKDAYS_SHORT = {
  en: ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
  es: ["lun", "mar", "mié", "jue", "vie", "sáb", "dom"],
};
const MONTHS_SHORT = {
  en: ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"],
  es: ["ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sept", "oct", "nov", "dic"],
};
const weekdayIndex = (weekday: string) => Math.max(0, WEEKDAY_KEYS.indexOf(weekday));

/** A weekday ("mon"…"sun") by name: "Monday", "lunes". */
export function weekdayName(weekday: string, lang: string): string {
  return WEEKDAYS[spanish(lang) ? "es" : "en"][weekdayIndex(weekday)]!;
}

/** A weekday's short name: "Mon", "lun". */
export function weekdayShort(weekday: string, lang: string): string {
  return WEEKDAYS_SHORT[spanish(lang) ? "es" : "en"][weekdayIndex(weekday)]!;
}

/** A calendar date (YYYY-MM-DD) as a short day: "Mar 9", "9 mar". The day itself, which no zone can shift. */
export function shortDate(date: string, lang: string): string {
  const month = MONTHS_SHORT[spanish(lang) ? "es" : "en"][Number(date.slice(5, 7)) - 1];
  const day = Number(date.slice(8, 10));
  return spanish(lang) ? `${day} ${month}` : `${month} ${day}`;
}

/** An hour of the day (0–23) as a clock says it: "3 PM", "3 p.m.". */
export function hourName(hour: number, lang: string): string {
  const half = hour < 12 ? (spanish(lang) ? "a.m." : "AM") : spanish(lang) ? "p.m." : "PM";
  return `${hour % 12 || 12} ${half}`;
}

/** Dollars as typed ("70", "70.5", "$70.50") to cents; null when it is not an amount. */
export function parseDollars(text: string): number | null {
  const cleaned = text.trim().replace(/^\$/, "").replace(/,/g, "");
  if (!/^\d+(\.\d{1,2})?$/.test(cleaned)) return null;
  return Math.round(Number(cleaned) * 100);
}

export function dollarsText(cents: number | null | undefined): string {
  if (cents === null || cents === undefined) return "";
  return cents % 100 === 0 ? String(cents / 100) : (cents / 100).toFixed(2);
}

/** Hours as typed ("3", "3.5") to whole minutes; null when it is not a number. */
export function parseHours(text: string): number | null {
  const cleaned = text.trim();
  if (!/^\d+(\.\d+)?$/.test(cleaned)) return null;
  return Math.round(Number(cleaned) * 60);
}

export function hoursText(minutes: number): string {
  return minutes % 60 === 0 ? String(minutes / 60) : String(Math.round((minutes / 60) * 100) / 100);
}

/** A length in words: "3 h" or "3 h 30 min". */
export function lengthText(minutes: number, t: TFunction<"driver">): string {
  const h = Math.floor(minutes / 60);
  const m = Math.round(minutes % 60);
  return m === 0 ? t("hours", { count: h }) : t("hoursMinutes", { hours: h, minutes: m });
}

/** The Monday (YYYY-MM-DD) of the week holding a calendar date, and dates around it. */
export function mondayOf(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  return new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** Today's date where the browser is. */
export function today(): string {
  const now = new Date();
  return new Date(Date.UTC(now.getFullYear(), now.getMonth(), now.getDate())).toISOString().slice(0, 10);
}
