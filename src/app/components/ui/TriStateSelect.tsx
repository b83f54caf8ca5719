import { useId } from "react";

export type TriState = "all" | "yes" | "no";

type Props = {
  label: string;
  value: TriState;
  onChange: (value: TriState) => void;
  labels: { all: string; yes: string; no: string };
  disabled?: boolean;
};

/** A yes / no / all filter on a boolean. */
export function TriStateSelect({ label, value, onChange, labels, disabled }: Props) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} disabled={disabled} onChange={(e) => onChange(e.target.value as TriState)}>
        <option value="all">{labels.all}</option>
        <option value="yes">{labels.yes}</option>
        <option value="no">{labels.no}</option>
      </select>
    </div>
  );
}
