import { formatDDMMYY } from "../../../shared/dates";

/** Numbers and money as the admin's language writes them (amounts are US dollars, stored in cents). */
export function formatCount(n: number, language: string): string {
  return new Intl.NumberFormat(language).format(n);
}

export function formatMoney(cents: number, language: string): string {
  return new Intl.NumberFormat(language, { style: "currency", currency: "USD" }).format(cents / 100);
}

/*
 * The console's one date format (docs/product.md): DD/MM/YY in either language, with HH:MM (24 h,
 * the browser's zone) beside it where the time matters. Every console screen formats dates here.
 */
const pad = (n: number) => String(n).padStart(2, "0");

/** An instant's day, DD/MM/YY in the browser's zone; "" for none. */
export function formatDate(epochMs: number | null | undefined): string {
  return formatDDMMYY(epochMs) ?? "";
}

/** An instant as DD/MM/YY HH:MM in the browser's zone; "" for none. */
export function formatDateTime(epochMs: number | null | undefined): string {
  const day = formatDDMMYY(epochMs);
  if (day === null) return "";
  const d = new Date(epochMs!);
  return `${day} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A calendar day (YYYY-MM-DD) as DD/MM/YY: the day itself, which no zone can shift; "" for anything else. */
export function formatDay(day: string): string {
  const match = /^\d{2}(\d{2})-(\d{2})-(\d{2})$/.exec(day);
  return match ? `${match[3]}/${match[2]}/${match[1]}` : "";
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
