import { useId, useState } from "react";
import { countSms, type SmsCount } from "../../../shared/sms";
import "./controls.css";

export type SmsTextAreaLabels = {
  /** "153 characters remaining · 1 SMS · GSM-7" */
  counter: (count: SmsCount) => string;
  /** Said when typing is refused because the text would need a second SMS. */
  limitReached: string;
};

type LimitControl = { checked: boolean; onChange: (checked: boolean) => void; disabled: boolean; label: string; hint: string };

type Props = {
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** While true, a change that would need more than one SMS segment is refused (docs/product.md, validation). */
  limit: boolean;
  labels: SmsTextAreaLabels;
  /** The "Limit characters" checkbox, where the panel has one. */
  limitControl?: LimitControl;
  error?: string;
  placeholder?: string;
  /** The campaign endpoint takes at most 1600 characters, even when the limit is lifted. */
  maxLength?: number;
  /** The text as it will be sent (a marketing SMS gains its opt-out line): what the counter and the limit count. */
  sentAs?: (value: string) => string;
};

/** The SMS text with its characters-remaining counter (encoding and segments included). */
export function SmsTextArea({ label, value, onChange, limit, labels, limitControl, error, placeholder, maxLength = 1600, sentAs = (v) => v }: Props) {
  const id = useId();
  const [refused, setRefused] = useState(false);
  const count = countSms(sentAs(value));
  const over = limit && count.messages > 1;
  return (
    <div className="field sms-field">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        value={value}
        placeholder={placeholder}
        maxLength={maxLength}
        aria-describedby={`${id}-counter${error ? ` ${id}-error` : ""}`}
        aria-invalid={over || Boolean(error) || undefined}
        onChange={(e) => {
          const next = e.target.value;
          // Text that fits may not grow past one segment; a text already over it (an owner turned the
          // limit back on) may still be shortened.
          if (limit && countSms(sentAs(next)).messages > 1 && (count.messages === 1 || next.length >= value.length)) {
            setRefused(true);
            return;
          }
          setRefused(false);
          onChange(next);
        }}
      />
      <p id={`${id}-counter`} className={count.remaining === 0 || over || refused ? "sms-counter sms-counter-full" : "sms-counter"} aria-live="polite">
        {labels.counter(count)}
        {refused && <span className="sms-refused"> · {labels.limitReached}</span>}
      </p>
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
      {limitControl && (
        <div className="limit-control">
          <label className="check" htmlFor={`${id}-limit`}>
            <input
              id={`${id}-limit`}
              type="checkbox"
              checked={limitControl.checked}
              disabled={limitControl.disabled}
              aria-describedby={`${id}-limit-hint`}
              onChange={(e) => limitControl.onChange(e.target.checked)}
            />
            {limitControl.label}
          </label>
          <small id={`${id}-limit-hint`} className="muted">
            {limitControl.hint}
          </small>
        </div>
      )}
    </div>
  );
}
