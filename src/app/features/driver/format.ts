/**
 * How the driver screens write money, lengths and station-local times, in the interface's language.
 * Times are always the station's (its IANA zone), as the driver will live them.
 */
import type { TFunction } from "i18next";

const locales = { en: "en-US", es: "es-US" } as const;
export const localeOf = (lang: string) => (lang === "es" ? locales.es : locales.en);

// Formatters are kept, one per locale, zone and shape: building one costs far more than formatting
// (a page of 20 offers built 80 per render, and the dashboard renders again at every poll). Bounded,
// since zones are few but could be many; past the bound the oldest is dropped.
const MAX_FORMATTERS = 256;
const formatters = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();

function kept<F extends Intl.NumberFormat | Intl.DateTimeFormat>(key: string, build: () => F): F {
  let formatter = formatters.get(key) as F | undefined;
  if (!formatter) {
    formatter = build();
    if (formatters.size >= MAX_FORMATTERS) formatters.delete(formatters.keys().next().value!);
    formatters.set(key, formatter);
  }
  return formatter;
}

// The first formatter a page builds, of any kind, also loads the browser's locale data, which costs
// far more than any later one (130–190 ms in Chromium at the 4× CPU slowdown of Lighthouse's phone,
// against under 10 ms for the next): on the dashboard it fell in the render of the page's first data,
// one long task with the whole page. This module loads with the page's code, which comes before the
// page can render (the route table, the guard and the user first), so a first formatter is built in
// the next task. Not when the browser is idle: in a trace of the dashboard loading, an idle callback
// came only after the render it was meant to precede.
function warmUp() {
  new Intl.DateTimeFormat(locales.en, { timeZone: "America/New_York", hour: "numeric" }).format(0);
}
setTimeout(warmUp, 0);

const dateTime = (lang: string, options: Intl.DateTimeFormatOptions) =>
  kept(`${localeOf(lang)} ${JSON.stringify(options)}`, () => new Intl.DateTimeFormat(localeOf(lang), options));

export function money(cents: number, lang: string): string {
  const fractionDigits = cents % 100 === 0 ? 0 : 2;
  return kept(
    `${localeOf(lang)} USD ${fractionDigits}`,
    () => new Intl.NumberFormat(localeOf(lang), { style: "currency", currency: "USD", minimumFractionDigits: fractionDigits }),
  ).format(cents / 100);
}

export function clock(epochMs: number, timeZone: string, lang: string): string {
  return dateTime(lang, { timeZone, hour: "numeric", minute: "2-digit" }).format(epochMs);
}

export function dayAndTime(epochMs: number, timeZone: string, lang: string): string {
  return dateTime(lang, { timeZone, weekday: "short", month: "short", day: "numeric", hour: "numeric", minute: "2-digit" }).format(epochMs);
}

/** "Wed, Jun 10, 10:00 AM – 1:00 PM EDT": a block in its station's time. */
export function blockSpan(startsAt: number, endsAt: number, timeZone: string, lang: string): string {
  const end = dateTime(lang, { timeZone, hour: "numeric", minute: "2-digit", timeZoneName: "short" }).format(endsAt);
  return `${dayAndTime(startsAt, timeZone, lang)} – ${end}`;
}

export function weekdayName(weekday: string, lang: string): string {
  // 2024-01-01 was a Monday.
  const index = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].indexOf(weekday);
  return dateTime(lang, { weekday: "long", timeZone: "UTC" }).format(Date.UTC(2024, 0, 1 + Math.max(0, index)));
}

/** A weekday's short name: "Mon", "lun". */
export function weekdayShort(weekday: string, lang: string): string {
  const index = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].indexOf(weekday);
  return dateTime(lang, { weekday: "short", timeZone: "UTC" }).format(Date.UTC(2024, 0, 1 + Math.max(0, index)));
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

/** The calendar date (YYYY-MM-DD) an instant falls on in a zone. */
export function localDate(epochMs: number, timeZone: string): string {
  return kept(`en-CA ${timeZone}`, () => new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })).format(epochMs);
}

/** A whole count as the language writes it ("1,234"); a fraction keeps one decimal ("12.5"). */
export function count(n: number, lang: string): string {
  return kept(`${localeOf(lang)} count`, () => new Intl.NumberFormat(localeOf(lang), { maximumFractionDigits: 1 })).format(n);
}

/** A share (0–1) as a percentage: "42%". */
export function percent(share: number, lang: string): string {
  return kept(`${localeOf(lang)} percent`, () => new Intl.NumberFormat(localeOf(lang), { style: "percent", maximumFractionDigits: 0 })).format(share);
}

/** A calendar date (YYYY-MM-DD) as a short day: "Mar 9", "9 mar". The day itself, which no zone can shift. */
export function shortDate(date: string, lang: string): string {
  return dateTime(lang, { month: "short", day: "numeric", timeZone: "UTC" }).format(Date.parse(`${date}T00:00:00Z`));
}

/** An hour of the day (0–23) as a clock says it: "3 PM", "3 p.m.". */
export function hourName(hour: number, lang: string): string {
  return dateTime(lang, { hour: "numeric", timeZone: "UTC" }).format(Date.UTC(2024, 0, 1, hour));
}
