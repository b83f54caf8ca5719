import { useEffect, useRef, useState } from "react";
import type uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { TableScroll } from "./TableScroll";
import { useInView } from "./use-in-view";
import "./Chart.css";

/**
 * A bar chart of values per point (a day, a week, an hour of the day…), with one or more lines of
 * another unit (money) on an axis of their own, drawn by uPlot on a canvas sized to its box. Its
 * numbers are also given as a table, for screen readers and for anyone who wants them exactly:
 * behind a "show as a table" toggle (rendered when opened), or shown outright. uPlot is loaded when
 * the first chart comes near the viewport, and each chart is drawn then, in a task of its own: a
 * page of charts paints its first screen without them. Should uPlot fail to load, the table is
 * shown outright. Every word comes from the caller (components take no namespace).
 */

export type ChartSeries = {
  label: string;
  values: (number | null)[];
  /** How a value is written (axis, tooltip, table). */
  format: (value: number) => string;
  color: string;
  /** Drawn as a line on the right-hand axis (money beside counts) rather than as bars on the left one. */
  secondary?: boolean;
};

/** A column of the table alone (figures that are not drawn). */
export type ChartColumn = { label: string; values: (number | null)[]; format: (value: number) => string };

export type ChartProps = {
  title: string;
  /** Each point's name, in the first column of the table and under the chart. */
  points: string[];
  /** Shorter names for the axis under the chart ("Mon" for "Monday"); the points' own by default. */
  ticks?: string[];
  /** The first column's heading ("Day", "Week"). */
  pointHeading: string;
  /** The points on a time axis (epoch seconds, shown in UTC); without, the points are evenly spaced categories. */
  times?: number[];
  lines: ChartSeries[];
  /** More columns for the table. */
  columns?: ChartColumn[];
  /** What the drawing says, as its accessible name (totals, a trend). */
  summary: string;
  /** The toggle's words; without, the table is shown outright. */
  asTable?: string;
  /** Written for a value that is missing (no median without offers). */
  none?: string;
};

export const CHART_COLORS = { brand: "#0f766e", accent: "#d97706", danger: "#b91c1c", blue: "#2563eb" };
const HEIGHT = 220;
const COUNT_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000];
const AXIS = "#64748b";
const GRID = "#e2e8f0";

export function Chart({ title, points, ticks = points, pointHeading, times, lines, columns = [], summary, asTable, none = "—" }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const inView = useInView(box);
  const [open, setOpen] = useState(false);
  const [undrawable, setUndrawable] = useState(false);

  useEffect(() => {
    const el = box.current;
    if (!el || !inView) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let plot: uPlot | undefined;
    let resize: ResizeObserver | undefined;
    import("uplot").then(
      ({ default: UPlot }) => {
        // Built in one task, sized and drawn in the next: together, the first chart's work is one
        // long task on a slow phone.
        timer = setTimeout(() => {
          if (!live) return;
          let draw = () => {};
          const options = chartOptions(UPlot, el.clientWidth || 600, { points, ticks, pointHeading, times, lines });
          const built = new UPlot(options, chartData(points, times, lines), (_plot, init) => {
            draw = () => void init();
          });
          plot = built;
          timer = setTimeout(() => {
            if (!live) return;
            el.append(built.root);
            draw();
            resize = new ResizeObserver(() => built.setSize({ width: el.clientWidth, height: HEIGHT }));
            resize.observe(el);
          });
        });
      },
      () => live && setUndrawable(true),
    );
    return () => {
      live = false;
      clearTimeout(timer);
      resize?.disconnect();
      plot?.destroy();
    };
  }, [inView, points, ticks, pointHeading, times, lines]);

  const all = [...lines, ...columns];
  const table = (
    <TableScroll label={title}>
      <table className="data-table">
        <caption className="visually-hidden">{title}</caption>
        <thead>
          <tr>
            <th scope="col">{pointHeading}</th>
            {all.map((l) => (
              <th key={l.label} scope="col">
                {l.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {points.map((point, i) => (
            <tr key={point}>
              <th scope="row">{point}</th>
              {all.map((l) => {
                const v = l.values[i];
                return <td key={l.label}>{v === null || v === undefined ? none : l.format(v)}</td>;
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );

  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} className="chart-canvas" role="img" aria-label={summary} />
      {asTable && !undrawable ? (
        <details onToggle={(e) => setOpen(e.currentTarget.open)}>
          <summary>{asTable}</summary>
          {open && table}
        </details>
      ) : (
        table
      )}
    </figure>
  );
}

type Drawing = Pick<ChartProps, "points" | "pointHeading" | "times" | "lines"> & { ticks: string[] };

const chartData = (points: string[], times: number[] | undefined, lines: ChartSeries[]) =>
  [times ?? points.map((_, i) => i), ...lines.map((l) => l.values)] as uPlot.AlignedData;

function chartOptions(UPlot: typeof uPlot, width: number, { points, ticks, pointHeading, times, lines }: Drawing): uPlot.Options {
  const xs = times ?? points.map((_, i) => i);
  const barLines = lines.filter((l) => !l.secondary);
  const right = lines.find((l) => l.secondary);
  const left = barLines[0];
  const bars = UPlot.paths.bars?.({ size: [0.7 / Math.max(1, barLines.length), 48], gap: 1 });
  return {
    width,
    height: HEIGHT,
    ...(times ? { tzDate: (ts: number) => UPlot.tzDate(new Date(ts * 1000), "Etc/UTC") } : {}),
    scales: {
      x: times ? { time: true } : { time: false, range: () => [-0.5, Math.max(0, points.length - 1) + 0.5] },
      y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
      ...(right ? { right: { range: (_u, _min, max) => [0, Math.max(100, max)] } } : {}),
    },
    series: [
      { label: pointHeading, value: (_u, x) => (x === null ? "" : (points[xs.indexOf(x)] ?? "")) },
      ...lines.map((line) => ({
        label: line.label,
        stroke: line.color,
        width: 2,
        scale: line.secondary ? "right" : "y",
        // The legend's live value: empty until the pointer is over a point.
        value: (_u: uPlot, v: number | null) => (v === null ? "" : line.format(v)),
        ...(line.secondary ? { points: { show: points.length <= 62 } } : { fill: `${line.color}55`, paths: bars, points: { show: false } }),
      })),
    ],
    axes: [
      times
        ? { stroke: AXIS, grid: { stroke: GRID } }
        : {
            stroke: AXIS,
            grid: { show: false },
            incrs: [1, 2, 3, 4, 6, 12],
            space: 32,
            values: (_u: uPlot, splits: number[]) => splits.map((v) => (Number.isInteger(v) ? (ticks[v] ?? "") : "")),
          },
      // The bars count things: whole steps only (no "0.5 blocks").
      { stroke: AXIS, grid: { stroke: GRID }, incrs: COUNT_STEPS, values: (_u, ticks) => ticks.map((v) => (left ? left.format(v) : String(v))) },
      ...(right
        ? [
            {
              scale: "right",
              side: 1 as const,
              grid: { show: false },
              stroke: AXIS,
              values: (_u: uPlot, ticks: number[]) => ticks.map((v) => right.format(v)),
            },
          ]
        : []),
    ],
  };
}
