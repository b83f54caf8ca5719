import { useTranslation } from "react-i18next";

/**
 * A calendar day (YYYY-MM-DD) in words in the app's language, e.g. "Mar 3, 2026" or "3 mar 2026";
 * "" for no day. Only the date picker's echo is in words (the picker draws in the browser's own
 * locale, so the day chosen is spelled out); everywhere else the console writes DD/MM/YY (../format.ts).
 */
function dayInWords(value: string, language: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return "";
  const [, y, m, d] = match;
  // The day as such, not an instant: formatted at noon UTC and read in UTC, it cannot slip a day.
  return new Intl.DateTimeFormat(language, { dateStyle: "medium", timeZone: "UTC" }).format(Date.UTC(Number(y), Number(m) - 1, Number(d), 12));
}

/**
 * A calendar day (YYYY-MM-DD, as the audience filters take it) with its error. The native picker
 * is told the app's language (`lang`), but Chromium draws it in the browser's own; the day chosen
 * is therefore also written out below it in the app's language, so the admin reads it one way.
 */
export function DateField({ id, label, value, onChange, error }: { id: string; label: string; value: string; onChange: (v: string) => void; error?: string }) {
  const { i18n } = useTranslation();
  const shown = dayInWords(value, i18n.language);
  const described = [shown && `${id}-day`, error && `${id}-error`].filter(Boolean).join(" ");
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="date"
        lang={i18n.language}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={Boolean(error) || undefined}
        aria-describedby={described || undefined}
      />
      {shown && (
        <small id={`${id}-day`} className="muted">
          {shown}
        </small>
      )}
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}
