import { useTranslation } from "react-i18next";
import { MAX_WINDOWS_PER_DAY } from "../../../shared/driver-filters";
import { WEEKDAYS, type Weekday } from "../../../shared/zoned-time";
import { Icon } from "../../components/ui/Icon";
import { weekdayName } from "./format";

export type Window = { start: string; end: string };
export type WeekSchedule = Record<Weekday, Window[]>;

export function fullWeek(schedule: Partial<Record<Weekday, Window[]>> | undefined): WeekSchedule {
  return Object.fromEntries(WEEKDAYS.map((d) => [d, schedule?.[d] ?? []])) as WeekSchedule;
}

/** The editor's `errors` from a form's: `errorAt(path)` is the message in words at "schedule.<day>" or "schedule.<day>.<i>". */
export function scheduleErrorTexts(errorAt: (path: string) => string | null): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const day of WEEKDAYS) {
    const dayError = errorAt(`schedule.${day}`);
    if (dayError) texts[day] = dayError;
    for (let i = 0; i < MAX_WINDOWS_PER_DAY; i++) {
      const windowError = errorAt(`schedule.${day}.${i}`);
      if (windowError) texts[`${day}.${i}`] = windowError;
    }
  }
  return texts;
}

/**
 * The weekly schedule: for each day, zero or more windows of station-local time. Controlled: the
 * settings form and the calendar keep the value. `errors` are translated messages by
 * "<day>.<index>" (a window) or "<day>" (the day).
 */
export function ScheduleEditor({
  value,
  onChange,
  errors = {},
  disabled,
}: {
  value: WeekSchedule;
  onChange: (next: WeekSchedule) => void;
  errors?: Record<string, string | undefined>;
  disabled?: boolean;
}) {
  const { t, i18n } = useTranslation("driver");
  const set = (day: Weekday, windows: Window[]) => onChange({ ...value, [day]: windows });

  return (
    <div className="schedule-editor">
      {WEEKDAYS.map((day) => {
        const name = weekdayName(day, i18n.language);
        return (
          <fieldset key={day} className="schedule-day" disabled={disabled}>
            <legend>{name}</legend>
            {value[day].length === 0 && <p className="muted schedule-none">{t("settings.noWindows")}</p>}
            {value[day].map((w, i) => {
              const error = errors[`${day}.${i}`];
              const id = `window-${day}-${i}`;
              return (
                // Windows have no identity of their own; position is what the form edits.
                // biome-ignore lint/suspicious/noArrayIndexKey: a window is its place in the day's list
                <div key={i} className="schedule-window">
                  <label htmlFor={`${id}-start`} className="visually-hidden">
                    {`${name} ${t("settings.from")}`}
                  </label>
                  <span aria-hidden="true">{t("settings.from")}</span>
                  <input
                    id={`${id}-start`}
                    type="time"
                    value={w.start}
                    aria-invalid={error ? true : undefined}
                    aria-describedby={error ? `${id}-error` : undefined}
                    onChange={(e) =>
                      set(
                        day,
                        value[day].map((x, j) => (j === i ? { ...x, start: e.target.value } : x)),
                      )
                    }
                  />
                  <label htmlFor={`${id}-end`} className="visually-hidden">
                    {`${name} ${t("settings.to")}`}
                  </label>
                  <span aria-hidden="true">{t("settings.to")}</span>
                  <input
                    id={`${id}-end`}
                    type="time"
                    value={w.end}
                    aria-invalid={error ? true : undefined}
                    aria-describedby={error ? `${id}-error` : undefined}
                    onChange={(e) =>
                      set(
                        day,
                        value[day].map((x, j) => (j === i ? { ...x, end: e.target.value } : x)),
                      )
                    }
                  />
                  <button
                    type="button"
                    className="icon-button"
                    aria-label={t("settings.removeWindow", { from: w.start, to: w.end })}
                    onClick={() =>
                      set(
                        day,
                        value[day].filter((_, j) => j !== i),
                      )
                    }
                  >
                    <Icon name="trash" />
                  </button>
                  {error && (
                    <p id={`${id}-error`} className="field-error">
                      {error}
                    </p>
                  )}
                </div>
              );
            })}
            {errors[day] && <p className="field-error">{errors[day]}</p>}
            {value[day].length < MAX_WINDOWS_PER_DAY && (
              <button type="button" className="link-button" onClick={() => set(day, [...value[day], { start: "08:00", end: "16:00" }])}>
                <Icon name="plus" /> {t("settings.addWindow")}
              </button>
            )}
          </fieldset>
        );
      })}
    </div>
  );
}
