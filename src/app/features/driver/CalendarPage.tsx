import { useMemo, useState } from "react";
import { Controller, type FieldError, get } from "react-hook-form";
import { useTranslation } from "react-i18next";
import { Link, useParams, useSearchParams } from "react-router";
import type { DriverFilters } from "../../../shared/driver-filters";
import { WEEKDAYS, type Weekday } from "../../../shared/zoned-time";
import { confirmedAction } from "../../components/ui/confirmed-action";
import { useConfirm } from "../../components/ui/Dialog";
import { FormMessage } from "../../components/ui/FormField";
import { Icon } from "../../components/ui/Icon";
import { ReadView } from "../../components/ui/ReadView";
import { StatusView } from "../../components/ui/StatusView";
import { toast } from "../../components/ui/Toast";
import { ApiClientError } from "../../lib/api-client";
import { apiErrorKey, fieldErrorText, useSchemaForm } from "../../lib/forms";
import { usePageTitle } from "../../lib/page-title";
import { type CalendarView, driverApi, useCalendar, useFilters } from "./api";
import { blockRefusalKey, waitMessage } from "./connect-errors";
import { windowsFormSchema } from "./filters-form";
import { addDays, mondayOf, money, today } from "./format";
import { fullWeek, ScheduleEditor, scheduleErrorTexts, type WeekSchedule } from "./ScheduleEditor";
import { blockSpan, clock, localDate, localeOf } from "./station-time";
import "./driver.css";
import "../../i18n/driver";

/**
 * /flex/calendar: the week, Monday to Sunday, with the schedule's windows and the won blocks of
 * each day in the station's own time; windows can be edited here, and a block forfeited after a
 * confirm. /flex/calendar/{phoneNumber}: another driver's, read-only (administrators only; the
 * server answers 403 to anyone else).
 */
export default function CalendarPage() {
  const { t, i18n } = useTranslation("driver");
  const { phoneNumber } = useParams();
  const [params, setParams] = useSearchParams();
  const requested = params.get("week");
  const week = mondayOf(requested && /^\d{4}-\d{2}-\d{2}$/.test(requested) ? requested : today());
  const calendar = useCalendar(week, phoneNumber);
  const data = calendar.data;
  usePageTitle(phoneNumber && data ? t("calendar.of", { name: data.driver.name }) : t("common:titles.flexCalendar"));
  const go = (date: string) => setParams({ week: date });
  // A limit (another driver's calendar, viewed too often) says how long to wait, in the screen's language.
  const wait = waitMessage(calendar.error);
  const weekLabel = new Intl.DateTimeFormat(localeOf(i18n.language), { month: "long", day: "numeric", year: "numeric", timeZone: "UTC" }).format(
    Date.parse(`${week}T00:00:00Z`),
  );

  return (
    <section className="driver-page driver-calendar">
      <h1>{phoneNumber && data ? t("calendar.of", { name: data.driver.name }) : t("common:titles.flexCalendar")}</h1>
      <nav className="week-nav" aria-label={t("calendar.week", { date: weekLabel })}>
        <button type="button" className="icon-button" aria-label={t("calendar.previous")} onClick={() => go(addDays(week, -7))}>
          <Icon name="chevron-left" />
        </button>
        <h2>{t("calendar.week", { date: weekLabel })}</h2>
        <button type="button" className="icon-button" aria-label={t("calendar.next")} onClick={() => go(addDays(week, 7))}>
          <Icon name="chevron-right" />
        </button>
        <button type="button" className="button button-secondary button-small" onClick={() => go(mondayOf(today()))}>
          {t("calendar.thisWeek")}
        </button>
      </nav>
      <ReadView
        read={calendar}
        error={
          wait
            ? t(wait.key, wait.values)
            : calendar.error instanceof ApiClientError && calendar.error.status < 500
              ? calendar.error.message
              : t("common:errors.couldntLoadCalendar")
        }
      >
        {(week) => <Week data={week} own={!phoneNumber} onChanged={() => void calendar.mutate()} />}
      </ReadView>
    </section>
  );
}

function Week({ data, own, onChanged }: { data: CalendarView; own: boolean; onChanged: () => void }) {
  const { t, i18n } = useTranslation("driver");
  const lang = i18n.language;
  const [editing, setEditing] = useState(false);
  const [confirm, confirmDialog] = useConfirm();
  const filters = useFilters();
  const schedule = fullWeek(data.schedule as Partial<Record<Weekday, { start: string; end: string }[]>>);
  const now = Date.now();

  const forfeit = (block: CalendarView["blocks"][number]) =>
    confirmedAction({
      confirm: () =>
        confirm({
          title: t("calendar.forfeitTitle"),
          message: t("calendar.forfeitMessage", { station: block.stationName, when: blockSpan(block.startsAt, block.endsAt, block.timeZone, lang) }),
          confirmLabel: t("calendar.forfeitConfirm"),
          tone: "danger",
        }),
      loading: t("calendar.forfeiting"),
      run: () => driverApi.forfeit(block.id),
      success: (result) => {
        onChanged();
        // While the platform limits the account the forfeit is queued (202), and sent when the lockout ends.
        return "queued" in result && result.queued
          ? t("calendar.forfeitQueued", { time: clock(result.sendsAt, block.timeZone, lang) })
          : t("calendar.forfeitDone");
      },
      failure: (err) => {
        const refusal = blockRefusalKey(err);
        if (refusal) return t(refusal);
        const wait = waitMessage(err);
        if (wait) return t(wait.key, wait.values);
        return err instanceof ApiClientError ? err.message : t("common:errors.generic");
      },
    });

  return (
    <>
      {confirmDialog}
      <p className="muted">{t("calendar.timesNote")}</p>
      <div className="week-grid">
        {WEEKDAYS.map((day, i) => {
          const date = addDays(data.week, i);
          const label = new Intl.DateTimeFormat(localeOf(lang), { weekday: "long", month: "short", day: "numeric", timeZone: "UTC" }).format(
            Date.parse(`${date}T00:00:00Z`),
          );
          const blocks = data.blocks.filter((b) => localDate(b.startsAt, b.timeZone) === date);
          return (
            <section key={day} className={`week-day${date === today() ? " is-today" : ""}`} aria-label={label}>
              <h3>{label}</h3>
              <h4 className="visually-hidden">{t("calendar.windows")}</h4>
              <ul className="day-windows">
                {schedule[day].length === 0 ? (
                  <li className="muted">{t("settings.noWindows")}</li>
                ) : (
                  schedule[day].map((w) => (
                    <li key={`${w.start}-${w.end}`}>
                      <Icon name="clock" /> {w.start}–{w.end}
                    </li>
                  ))
                )}
              </ul>
              <h4 className="visually-hidden">{t("calendar.blocks")}</h4>
              {blocks.length === 0 ? (
                <p className="muted day-none">{t("calendar.noBlocks")}</p>
              ) : (
                <ul className="day-blocks">
                  {blocks.map((b) => (
                    <li key={b.id} className="day-block">
                      <strong>
                        {clock(b.startsAt, b.timeZone, lang)}–{clock(b.endsAt, b.timeZone, lang)}
                      </strong>
                      <span>{b.stationName}</span>
                      <span>{money(b.payCents, lang)}</span>
                      {b.forfeitQueuedAt ? (
                        <span className="muted">{t("calendar.forfeitWaits")}</span>
                      ) : (
                        own &&
                        b.startsAt > now && (
                          <button type="button" className="link-button" onClick={() => void forfeit(b)}>
                            {t("calendar.forfeit")}
                          </button>
                        )
                      )}
                    </li>
                  ))}
                </ul>
              )}
            </section>
          );
        })}
      </div>
      {own && (
        <div className="card calendar-edit">
          {editing ? (
            <WindowsForm
              schedule={schedule}
              filters={filters}
              onCancel={() => setEditing(false)}
              onSaved={() => {
                setEditing(false);
                onChanged();
                void filters.mutate();
              }}
            />
          ) : (
            <button type="button" className="button button-secondary" onClick={() => setEditing(true)}>
              <Icon name="calendar" /> {t("calendar.editWindows")}
            </button>
          )}
        </div>
      )}
    </>
  );
}

/** The week's windows, edited in place: the saved filters with a new schedule, checked as the settings form checks them. */
function WindowsForm({
  schedule,
  filters,
  onCancel,
  onSaved,
}: {
  schedule: WeekSchedule;
  filters: ReturnType<typeof useFilters>;
  onCancel: () => void;
  onSaved: () => void;
}) {
  const { t } = useTranslation("driver");
  const saved = filters.data?.filters as DriverFilters | null | undefined;
  const schema = useMemo(() => (saved ? windowsFormSchema(saved) : null), [saved]);
  if (schema) return <WindowsFormFields schema={schema} schedule={schedule} onCancel={onCancel} onSaved={onSaved} />;
  if (filters.error) return <StatusView kind="error" message={t("common:errors.couldntConfigureSchedule")} onRetry={() => void filters.mutate()} compact />;
  if (saved === undefined) return <StatusView kind="loading" compact />;
  // Windows belong to a filter set: with none saved yet, the settings page makes one.
  return <StatusView kind="empty" title={t("errors.stations_required")} action={<Link to="/flex/settings">{t("common:titles.flexSettings")}</Link>} compact />;
}

function WindowsFormFields({
  schema,
  schedule,
  onCancel,
  onSaved,
}: {
  schema: ReturnType<typeof windowsFormSchema>;
  schedule: WeekSchedule;
  onCancel: () => void;
  onSaved: () => void;
}) {
  const { t } = useTranslation("driver");
  const form = useSchemaForm(schema, { schedule });
  const errorAt = (path: string): string | null => {
    const error = get(form.formState.errors, path) as FieldError | undefined;
    return error?.message ? fieldErrorText(t, error) : null;
  };
  const save = form.onSubmit(async (filters) => {
    try {
      await driverApi.saveFilters(filters);
      toast.success(t("settings.saved"));
      onSaved();
    } catch (err) {
      form.setFormError(apiErrorKey(err, "common:errors.couldntConfigureSchedule"));
    }
  });
  return (
    <form onSubmit={save} noValidate>
      <h2>{t("settings.schedule")}</h2>
      <p className="muted">{t("settings.scheduleLead")}</p>
      <Controller
        control={form.control}
        name="schedule"
        render={({ field }) => <ScheduleEditor value={field.value} onChange={field.onChange} errors={scheduleErrorTexts(errorAt)} />}
      />
      <FormMessage>{form.formError ?? errorAt("schedule")}</FormMessage>
      <div className="actions">
        <button type="submit" className="button" disabled={form.submitting}>
          {t("calendar.doneEditing")}
        </button>
        <button type="button" className="button button-secondary" onClick={onCancel}>
          {t("common:cancel")}
        </button>
      </div>
    </form>
  );
}
