import { type InputHTMLAttributes, type ReactNode, type Ref, type SelectHTMLAttributes, useId, useState } from "react";

/**
 * Labelled form controls: the label is tied to the control, and the hint and error are read out
 * with it (aria-describedby), so screen readers and keyboard users get what sighted users see.
 */

type Described = { label: ReactNode; error?: string | null; hint?: ReactNode };

function describedBy(id: string, hint: unknown, error: unknown): string | undefined {
  return [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
}

function Messages({ id, hint, error }: { id: string; hint?: ReactNode; error?: string | null }) {
  return (
    <>
      {hint && (
        <p id={`${id}-hint`} className="form-hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </>
  );
}

/** `ref` reaches the input, so a form library can focus the first field to fix. */
export type TextFieldProps = Described & Omit<InputHTMLAttributes<HTMLInputElement>, "id"> & { id?: string; ref?: Ref<HTMLInputElement> };

export function TextField({ label, error, hint, id, className, ...input }: TextFieldProps) {
  const autoId = useId();
  const fieldId = id ?? autoId;
  return (
    <div className={className ? `form-field ${className}` : "form-field"}>
      <label htmlFor={fieldId}>{label}</label>
      <input id={fieldId} aria-invalid={error ? true : undefined} aria-describedby={describedBy(fieldId, hint, error)} {...input} />
      <Messages id={fieldId} hint={hint} error={error} />
    </div>
  );
}

/** A password input with a show/hide button (labels given by the screen, in its language). */
export function PasswordField({ showLabel, hideLabel, ...props }: Omit<TextFieldProps, "type"> & { showLabel: string; hideLabel: string }) {
  const [visible, setVisible] = useState(false);
  const autoId = useId();
  const fieldId = props.id ?? autoId;
  const { label, error, hint, className, id: _id, ...input } = props;
  return (
    <div className={className ? `form-field ${className}` : "form-field"}>
      <label htmlFor={fieldId}>{label}</label>
      <div className="password-input">
        <input
          id={fieldId}
          type={visible ? "text" : "password"}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy(fieldId, hint, error)}
          {...input}
        />
        <button type="button" className="password-toggle" aria-pressed={visible} aria-controls={fieldId} onClick={() => setVisible((v) => !v)}>
          {visible ? hideLabel : showLabel}
        </button>
      </div>
      <Messages id={fieldId} hint={hint} error={error} />
    </div>
  );
}

export type Choice<V extends string> = { value: V; label: ReactNode };

/** A radio group: one choice among a few, arrow keys move between them. */
export function ChoiceField<V extends string>({
  legend,
  name,
  value,
  choices,
  onChange,
  disabled,
}: {
  legend: ReactNode;
  name: string;
  value: V;
  choices: Choice<V>[];
  onChange: (value: V) => void;
  disabled?: boolean;
}) {
  return (
    <fieldset className="choice-field" disabled={disabled}>
      <legend>{legend}</legend>
      <div className="choice-options">
        {choices.map((choice) => (
          <label key={choice.value} className="choice">
            <input type="radio" name={name} value={choice.value} checked={value === choice.value} onChange={() => onChange(choice.value)} />
            <span>{choice.label}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

export function SelectField({
  label,
  error,
  hint,
  id,
  children,
  ...select
}: Described & Omit<SelectHTMLAttributes<HTMLSelectElement>, "id"> & { id?: string; ref?: Ref<HTMLSelectElement> }) {
  const autoId = useId();
  const fieldId = id ?? autoId;
  return (
    <div className="form-field">
      <label htmlFor={fieldId}>{label}</label>
      <select id={fieldId} aria-invalid={error ? true : undefined} aria-describedby={describedBy(fieldId, hint, error)} {...select}>
        {children}
      </select>
      <Messages id={fieldId} hint={hint} error={error} />
    </div>
  );
}

/** A form-level message: errors are announced (role="alert"), confirmations politely. */
export function FormMessage({ kind = "error", children }: { kind?: "error" | "info" | "success"; children: ReactNode }) {
  if (!children) return null;
  return (
    <div className={kind === "error" ? "alert" : kind === "success" ? "form-success" : "notice"} role={kind === "error" ? "alert" : "status"}>
      {children}
    </div>
  );
}
