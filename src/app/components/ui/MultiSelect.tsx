import { useRef, useState } from "react";
import { useCheckboxGroup, useCheckboxGroupItem } from "react-aria";
import { type CheckboxGroupState, useCheckboxGroupState } from "react-stately";
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
 * count of what is selected, a Clear button, and a filter once the list gets long. The group and
 * its checkboxes are React Aria's checkbox group (docs/decisions/0009), on the native inputs.
 */
export function MultiSelect({ legend, options, value, onChange, labels, disabled }: Props) {
  const [filter, setFilter] = useState("");
  const state = useCheckboxGroupState({ value, onChange, isDisabled: disabled });
  const { groupProps, labelProps } = useCheckboxGroup({ label: legend, isDisabled: disabled }, state);
  const needle = filter.trim().toLowerCase();
  const shown = needle ? options.filter((o) => o.toLowerCase().includes(needle)) : options;
  return (
    // The fieldset keeps its native disabling of the filter and Clear; the group's name is the legend.
    <fieldset {...groupProps} className="multi-select" disabled={disabled}>
      <legend {...labelProps}>{legend}</legend>
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
        {shown.map((option) => (
          <Option key={option} option={option} state={state} />
        ))}
      </div>
    </fieldset>
  );
}

function Option({ option, state }: { option: string; state: CheckboxGroupState }) {
  const ref = useRef<HTMLInputElement>(null);
  const { labelProps, inputProps } = useCheckboxGroupItem({ value: option, children: option }, state, ref);
  return (
    <label {...labelProps} className="check">
      <input {...inputProps} ref={ref} />
      {option}
    </label>
  );
}
