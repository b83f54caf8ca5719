/**
 * The driver screens' times in a station's zone, in the interface's language, through Intl (the
 * block's day and clock times, the date an instant falls on there). Times are always the station's
 * (its IANA zone), as the driver will live them. What needs no zone is in format.ts, without Intl.
 */

const locales = { en: "en-US", es: "es-US" } as const;
export const localeOf = (lang: string) => (lang === "es" ? locales.es : locales.en);

// Formatters are kept, one per locale, zone and shape: building one costs far more than formatting
// (a page of 20 offers built 80 per render, and the dashboard renders again at every poll). Bounded,
// since zones are few but could be many; past the bound the oldest is dropped.
const MAX_FORMATTERS = 256;
const formatters = new Map<string, Intl.DateTimeFormat>();

function kept(key: string, build: () => Intl.DateTimeFormat): Intl.DateTimeFormat {
  let formatter = formatters.get(key);
  if (!formatter) {
    formatter = build();
    if (formatters.size >= MAX_FORMATTERS) formatters.delete(formatters.keys().next().value!);
    formatters.set(key, formatter);
  }
  return formatter;
}

// The first formatter a page builds, of any kind, also loads the browser's locale data, which costs
// far more than any later one: built in the render of the dashboard's first data, it would make that
// render one long task with the whole page. This module loads with the page's code, which comes before the
// page can render (the route table, the guard and the user first), so a first formatter is built in
// the next task. Not when the browser is idle: in a trace of the dashboard loading, an idle callback
// came only after the render it was meant to precede. The locale data is the renderer process's:
// when the dashboard is opened directly, a worker has usually loaded it already
// (boot/first-load.ts, loadLocaleDataApart) and this task takes a fraction of a millisecond.
function warmUp() {
  new Intl.DateTimeFormat(locales.en, { timeZone: "America/New_York", hour: "numeric" }).format(0);
}
setTimeout(warmUp, 0);

const dateTime = (lang: string, options: Intl.DateTimeFormatOptions) =>
  kept(`${localeOf(lang)} ${JSON.stringify(options)}`, () => new Intl.DateTimeFormat(localeOf(lang), options));

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

/** The calendar date (YYYY-MM-DD) an instant falls on in a zone. */
export function localDate(epochMs: number, timeZone: string): string {
  return kept(`en-CA ${timeZone}`, () => new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })).format(epochMs);
}

/**
 * A zone as a driver reads it: its generic name in the interface's language and its city, "Central
 * Time (Chicago)", "hora central (Chicago)"; the city alone where the browser has no name for it.
 */
export function zoneName(timeZone: string, lang: string): string {
  const city = (timeZone.split("/").pop() ?? timeZone).replaceAll("_", " ");
  try {
    const name = dateTime(lang, { timeZone, timeZoneName: "longGeneric" })
      .formatToParts(0)
      .find((p) => p.type === "timeZoneName")?.value;
    return name ? `${name} (${city})` : city;
  } catch {
    return city;
  }
}
