/** Dates are shown DD/MM/YY (docs/product.md). */
export function formatDDMMYY(epochMs: number | null | undefined): string | null {
  if (epochMs === null || epochMs === undefined) return null;
  const d = new Date(epochMs);
  if (Number.isNaN(d.getTime())) return null;
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${pad(d.getDate())}/${pad(d.getMonth() + 1)}/${pad(d.getFullYear() % 100)}`;
}

/** YYYY-MM-DD in UTC (the chat widget's expiration_date). */
export function isoDate(epochMs: number | null | undefined): string | null {
  if (epochMs === null || epochMs === undefined) return null;
  const d = new Date(epochMs);
  return Number.isNaN(d.getTime()) ? null : d.toISOString().slice(0, 10);
}
