import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { DASHBOARD_NS } from "../../i18n/admin-dashboard";
import { formatCount, formatDay, formatMoney } from "./format";

/**
 * A bar chart of values per calendar day (money as a line on its own axis), drawn by uPlot on a
 * canvas sized to its box, with its numbers also given as a table for screen readers and for anyone
 * who wants them exactly. Only lazily loaded modules import it, so uPlot stays in their chunks.
 */

export type Line = { label: string; values: number[]; color: string; money?: boolean };

const formatValue = (line: Line, v: number, language: string) => (line.money ? formatMoney(v, language) : formatCount(v, language));

export const BAR_COLORS = { brand: "#0f766e", accent: "#d97706", danger: "#b91c1c", blue: "#2563eb" };
const HEIGHT = 220;

export function Chart({ title, days, lines }: { title: string; days: string[]; lines: Line[] }) {
  const { t, i18n } = useTranslation(DASHBOARD_NS);
  const box = useRef<HTMLDivElement>(null);
  const language = i18n.language;
  const format = (line: Line, v: number) => formatValue(line, v, language);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    // Noon UTC of each calendar day: the axis shows the admin's days, whatever the browser's zone.
    const xs = days.map((d) => Date.parse(`${d}T12:00:00Z`) / 1000);
    const hasMoney = lines.some((l) => l.money);
    const bars = uPlot.paths.bars?.({ size: [0.7 / lines.filter((l) => !l.money).length, 48], gap: 1 });
    const opts: uPlot.Options = {
      width: el.clientWidth || 600,
      height: HEIGHT,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
      scales: {
        x: { time: true },
        y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
        ...(hasMoney ? { money: { range: (_u, _min, max) => [0, Math.max(100, max)] } } : {}),
      },
      series: [
        { label: t("charts.day"), value: (_u, ts) => (ts === null ? "" : formatDay(new Date(ts * 1000).toISOString().slice(0, 10))) },
        ...lines.map((line) => ({
          label: line.label,
          stroke: line.color,
          width: 2,
          scale: line.money ? "money" : "y",
          value: (_u: uPlot, v: number | null) => (v === null ? "" : formatValue(line, v, language)),
          ...(line.money ? { points: { show: days.length <= 62 } } : { fill: `${line.color}55`, paths: bars }),
        })),
      ],
      axes: [
        { stroke: "#64748b", grid: { stroke: "#e2e8f0" } },
        { stroke: "#64748b", grid: { stroke: "#e2e8f0" }, values: (_u, ticks) => ticks.map((v) => formatCount(v, language)) },
        ...(hasMoney
          ? [
              {
                scale: "money",
                side: 1 as const,
                grid: { show: false },
                stroke: "#64748b",
                values: (_u: uPlot, ticks: number[]) => ticks.map((v) => formatMoney(v, language)),
              },
            ]
          : []),
      ],
    };
    const plot = new uPlot(opts, [xs, ...lines.map((l) => l.values)], el);
    const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [days, lines, language, t]);

  const summary = lines
    .map((line) =>
      t("charts.summary", {
        title: line.label,
        total: format(
          line,
          line.values.reduce((a, b) => a + b, 0),
        ),
        days: days.length,
      }),
    )
    .join(". ");

  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} className="chart-canvas" role="img" aria-label={summary} />
      <details>
        <summary>{t("charts.asTable")}</summary>
        <div className="table-wrap">
          <table className="data-table">
            <caption className="visually-hidden">{title}</caption>
            <thead>
              <tr>
                <th scope="col">{t("charts.day")}</th>
                {lines.map((l) => (
                  <th key={l.label} scope="col">
                    {l.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {days.map((day, i) => (
                <tr key={day}>
                  <th scope="row">{formatDay(day)}</th>
                  {lines.map((l) => (
                    <td key={l.label}>{format(l, l.values[i] ?? 0)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
