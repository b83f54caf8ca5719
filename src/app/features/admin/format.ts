/** Numbers and money as the admin's language writes them (amounts are US dollars, stored in cents). */
export function formatCount(n: number, language: string): string {
  return new Intl.NumberFormat(language).format(n);
}

export function formatMoney(cents: number, language: string): string {
  return new Intl.NumberFormat(language, { style: "currency", currency: "USD" }).format(cents / 100);
}

/** A calendar day (YYYY-MM-DD) in the language's short form, e.g. 9 Mar 2031 / 9 mar 2031. */
export function formatDay(day: string, language: string): string {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  return new Intl.DateTimeFormat(language, { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" }).format(Date.UTC(y, m - 1, d));
}

/** Date and time of an instant in the browser's zone, in the language's short form. */
export function formatDateTime(epochMs: number | null, language: string): string {
  if (epochMs === null) return "";
  return new Intl.DateTimeFormat(language, { dateStyle: "short", timeStyle: "short" }).format(epochMs);
}

/** Hands text the API answered (a CSV export) to the browser as a download. */
export function saveText(text: string, filename: string, type = "text/csv;charset=utf-8") {
  // Excel reads UTF-8 (names with accents) only with a byte-order mark; the server sends one, which
  // text() has already taken off.
  const url = URL.createObjectURL(new Blob(["\uFEFF", text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
