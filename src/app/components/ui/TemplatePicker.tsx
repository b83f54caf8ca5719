import { useId } from "react";
import type { WhatsAppTemplate } from "../../../shared/templates";
import "./controls.css";

export function templateText(template: WhatsAppTemplate | undefined, type: "HEADER" | "BODY"): string {
  return template?.components.find((c) => c.type.toUpperCase() === type)?.text ?? "";
}

type Props = {
  templates: WhatsAppTemplate[];
  value: string;
  onChange: (id: string) => void;
  labels: { template: string; placeholder: string; preview: string };
  error?: string;
  disabled?: boolean;
};

/** "Select a template": each option shows the name and header text; the body is previewed read-only. */
export function TemplatePicker({ templates, value, onChange, labels, error, disabled }: Props) {
  const id = useId();
  const selected = templates.find((t) => t.id === value);
  return (
    <div className="field template-picker">
      <label htmlFor={id}>{labels.template}</label>
      <select
        id={id}
        value={value}
        disabled={disabled}
        aria-invalid={Boolean(error) || undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => onChange(e.target.value)}
      >
        <option value="">{labels.placeholder}</option>
        {templates.map((t) => {
          const header = templateText(t, "HEADER");
          return (
            <option key={t.id} value={t.id}>
              {`${t.name} (${t.language})${header ? ` — ${header}` : ""}`}
            </option>
          );
        })}
      </select>
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
      <label htmlFor={`${id}-preview`}>{labels.preview}</label>
      <textarea id={`${id}-preview`} readOnly value={templateText(selected, "BODY")} className="template-preview" />
    </div>
  );
}
