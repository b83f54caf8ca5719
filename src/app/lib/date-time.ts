import { formatDDMMYY } from "../../shared/dates";

/** DD/MM/YY HH:MM in the admin's zone. */
export function formatDateTime(epochMs: number): string {
  const d = new Date(epochMs);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${formatDDMMYY(epochMs)} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
