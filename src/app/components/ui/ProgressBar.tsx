import "./controls.css";

export type ProgressPart = {
  key: string;
  label: string;
  value: number;
  tone: "pending" | "deferred" | "sending" | "sent" | "delivered" | "failed" | "skipped";
};

type Props = {
  /** What the bar measures, for screen readers. */
  label: string;
  total: number;
  /** How many of `total` are finished (the bar's value). */
  done: number;
  parts: ProgressPart[];
  legend?: boolean;
};

/** A stacked bar: one coloured segment per part, and the share that is done as its value. */
export function ProgressBar({ label, total, done, parts, legend = true }: Props) {
  const percent = total > 0 ? Math.min(100, Math.round((done / total) * 100)) : 0;
  return (
    <div className="progress">
      <div
        className="progress-track"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${percent}% (${done}/${total})`}
      >
        {total > 0 &&
          parts
            .filter((p) => p.value > 0)
            .map((p) => (
              <span
                key={p.key}
                className={`progress-part progress-${p.tone}`}
                style={{ width: `${(p.value / total) * 100}%` }}
                title={`${p.label}: ${p.value}`}
              />
            ))}
      </div>
      {legend && (
        <ul className="progress-legend">
          {parts.map((p) => (
            <li key={p.key}>
              <span className={`progress-swatch progress-${p.tone}`} aria-hidden="true" />
              {p.label} <strong>{p.value}</strong>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
