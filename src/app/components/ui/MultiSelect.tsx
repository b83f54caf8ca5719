import { useId, useState } from "react";
import "./controls.css";

export type MultiSelectLabels = {
  /** "2 selected" */
  selected: (count: number) => string;
  clear: string;
  filter: string;
  none: string;
};

type Props = {
  legend: string;
  options: string[];
  value: string[];
  onChange: (value: string[]) => void;
  labels: MultiSelectLabels;
  disabled?: boolean;
};

/**
 * A multi-select as a box of checkboxes (keyboard and touch friendly, no pop-up to lose), with a
 * count of what is selected, a Clear button, and a filter once the list gets long.
 */
export function MultiSelect({ legend, options, value, onChange, labels, disabled }: Props) {
  const id = useId();
  const [filter, setFilter] = useState("");
  const selected = new Set(value);
  const needle = filter.trim().toLowerCase();
  const shown = needle ? options.filter((o) => o.toLowerCase().includes(needle)) : options;
  const toggle = (option: string, on: boolean) => onChange(on ? [...value, option] : value.filter((v) => v !== option));
  return (
    <fieldset className="multi-select" disabled={disabled}>
      <legend>{legend}</legend>
      <div className="multi-select-head">
        <span className="muted" aria-live="polite">
          {labels.selected(value.length)}
        </span>
        <button type="button" className="link-button" disabled={value.length === 0} onClick={() => onChange([])}>
          {labels.clear}
        </button>
      </div>
      {options.length > 10 && (
        <input
          type="search"
          aria-label={`${labels.filter}: ${legend}`}
          placeholder={labels.filter}
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
        />
      )}
      <div className="multi-select-options">
        {shown.length === 0 && <p className="muted">{labels.none}</p>}
        {shown.map((option, i) => (
          <label key={option} htmlFor={`${id}-${i}`} className="check">
            <input id={`${id}-${i}`} type="checkbox" checked={selected.has(option)} onChange={(e) => toggle(option, e.target.checked)} />
            {option}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
