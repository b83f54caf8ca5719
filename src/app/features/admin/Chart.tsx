import { useMemo } from "react";
import { useTranslation } from "react-i18next";
import { CHART_COLORS, Chart as DrawnChart } from "../../components/ui/Chart";
import { DASHBOARD_NS } from "../../i18n/admin-dashboard";
import { formatCount, formatDay, formatMoney } from "./format";

/**
 * The console's chart of values per calendar day (money as a line on its own axis): the shared
 * chart (components/ui/Chart) on a time axis of the admin's days, in the console's words and
 * formats, its table behind "Show as a table". Only lazily loaded modules import it (uPlot).
 */

export type Line = { label: string; values: number[]; color: string; money?: boolean };

export const BAR_COLORS = CHART_COLORS;

export function Chart({ title, days, lines }: { title: string; days: string[]; lines: Line[] }) {
  const { t, i18n } = useTranslation(DASHBOARD_NS);
  const language = i18n.language;
  // Noon UTC of each calendar day: the axis shows the admin's days, whatever the browser's zone.
  const times = useMemo(() => days.map((d) => Date.parse(`${d}T12:00:00Z`) / 1000), [days]);
  const points = useMemo(() => days.map(formatDay), [days]);
  const series = useMemo(
    () =>
      lines.map((line) => ({
        label: line.label,
        values: line.values,
        color: line.color,
        secondary: line.money,
        format: (v: number) => (line.money ? formatMoney(v, language) : formatCount(v, language)),
      })),
    [lines, language],
  );
  const summary = series
    .map((line) => t("charts.summary", { title: line.label, total: line.format(line.values.reduce((a, b) => a + (b ?? 0), 0)), days: days.length }))
    .join(". ");
  return (
    <DrawnChart title={title} points={points} pointHeading={t("charts.day")} times={times} lines={series} summary={summary} asTable={t("charts.asTable")} />
  );
}
