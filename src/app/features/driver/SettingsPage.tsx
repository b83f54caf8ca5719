import { useMemo } from "react";
import { Controller, type FieldError, get } from "react-hook-form";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import type { DriverFilters } from "../../../shared/driver-filters";
import { FormMessage, TextField } from "../../components/ui/FormField";
import { StatusView } from "../../components/ui/StatusView";
import { toast } from "../../components/ui/Toast";
import { ApiClientError } from "../../lib/api-client";
import { apiErrorKey, fieldErrorText, useSchemaForm } from "../../lib/forms";
import { useSession } from "../../lib/session";
import { driverApi, type Station, useFilters, useStations } from "./api";
import { waitMessage } from "./connect-errors";
import { filtersFormSchema, toFormValues } from "./filters-form";
import { ScheduleEditor, scheduleErrorTexts } from "./ScheduleEditor";
import { StationZone } from "./StationZone";
import "./driver.css";
import "../../i18n/auth";
import "../../i18n/driver";

/**
 * /flex/settings: stations (or Spark delivery areas) from the platform by the names the Worker
 * gives them, grouped by city, each with its time zone (correctable; chosen first where the Worker
 * knows none) and optional own minimums; minimum pay and $/hour; arrival buffer; block length;
 * daily cap; the weekly schedule. Validated with the same schema as the server; saving a valid set
 * completes setup (routing step 4).
 */
export default function SettingsPage() {
  const { t } = useTranslation("driver");
  const stations = useStations();
  const filters = useFilters();
  if (stations.error || filters.error) {
    // Told to wait (the stations are read from the platform, which is limited per driver): say how long.
    const wait = waitMessage(stations.error);
    return (
      <section className="driver-page">
        <h1>{t("common:titles.flexSettings")}</h1>
        <StatusView
          kind="error"
          message={wait ? t(wait.key, wait.values) : t("common:errors.couldntConfigureSchedule")}
          onRetry={() => {
            void stations.mutate();
            void filters.mutate();
          }}
        />
      </section>
    );
  }
  if (!stations.data || !filters.data) return <StatusView kind="loading" />;
  const list = stations.data;
  // A zone saved is the station's new row in the cache too, so the page opened again shows it.
  const zoneSaved = (station: Station) =>
    void stations.mutate({ ...list, stations: list.stations.map((s) => (s.id === station.id ? station : s)) }, { revalidate: false });
  return <SettingsForm stations={list.stations} zoneChoices={list.zoneChoices} onZoneSaved={zoneSaved} saved={filters.data.filters} />;
}

function SettingsForm({
  stations,
  zoneChoices,
  onZoneSaved,
  saved,
}: {
  stations: Station[];
  zoneChoices: string[];
  onZoneSaved: (station: Station) => void;
  saved: DriverFilters | null;
}) {
  const { t } = useTranslation("driver");
  const navigate = useNavigate();
  const { user, reloadUser } = useSession();
  const app = user?.app ?? "flex";
  const platform = t(`platform.${app}`);
  const initial = useMemo(() => toFormValues(stations, saved), [stations, saved]);
  const form = useSchemaForm(filtersFormSchema, initial);
  const { register, control } = form;
  /** The message at a dotted path in words; a list's own message (no stations chosen) is its root. */
  const err = (path: string): string | null => {
    const found = get(form.formState.errors, path) as (FieldError & { root?: FieldError }) | undefined;
    const error = found?.root ?? found;
    return error?.message ? fieldErrorText(t, error) : null;
  };
  const chosen = form.watch("stations");

  const groups = useMemo(() => {
    const byGroup = new Map<string, number[]>();
    for (const [i, s] of stations.entries()) byGroup.set(s.group, [...(byGroup.get(s.group) ?? []), i]);
    return [...byGroup.entries()];
  }, [stations]);
  const zoneSaved = (i: number, station: Station) => {
    form.setValue(`stations.${i}.timeZone`, station.timeZone, { shouldValidate: form.formState.isSubmitted });
    onZoneSaved(station);
  };

  const save = form.onSubmit(
    async (filters) => {
      try {
        await driverApi.saveFilters(filters);
        await reloadUser();
        toast.success(t("settings.saved"));
        void navigate("/flex/dashboard");
      } catch (e) {
        const details = e instanceof ApiClientError && Array.isArray(e.details) ? (e.details as { path?: string; message?: string }[]) : [];
        if (details.some((d) => d.message === "unknown_station")) form.setFieldError("stations", "driver:errors.unknown_station");
        else if (details.some((d) => d.message === "zone_needed")) form.setFieldError("stations", "driver:errors.zone_needed");
        else form.setFormError(apiErrorKey(e, "common:errors.couldntConfigureSchedule"));
      }
    },
    () => requestAnimationFrame(() => document.querySelector<HTMLElement>('.driver-settings [aria-invalid="true"]')?.focus()),
  );

  return (
    <section className="driver-page driver-settings">
      <h1>{t("common:titles.flexSettings")}</h1>
      <p className="muted">{t("settings.lead")}</p>
      <form onSubmit={save} noValidate className="driver-form">
        <fieldset className="card settings-section">
          <legend>{t(`settings.stations.${app}`)}</legend>
          <p className="muted">{t(`settings.stationsLead.${app}`)}</p>
          {stations.length === 0 && <StatusView kind="empty" title={t("settings.noStations", { platform })} compact />}
          {groups.map(([group, indexes]) => (
            <fieldset key={group} className="station-region">
              <legend>
                {group} <span className="muted">{t("settings.selectedCount", { count: indexes.filter((i) => chosen[i]?.selected).length })}</span>
              </legend>
              {indexes.map((i) => {
                const s = stations[i]!;
                return (
                  <div key={s.id} className="station-row">
                    <label className="check">
                      <input type="checkbox" {...register(`stations.${i}.selected`)} aria-invalid={err("stations") ? true : undefined} /> {s.name}
                    </label>
                    <StationZone station={s} choices={zoneChoices} onSaved={(station) => zoneSaved(i, station)} error={err(`stations.${i}.timeZone`)} />
                    {chosen[i]?.selected && (
                      <div className="station-minimums">
                        <TextField
                          {...register(`stations.${i}.minPay`)}
                          label={`${t("settings.stationMinPay")} ${t("settings.optional")}`}
                          inputMode="decimal"
                          error={err(`stations.${i}.minPay`)}
                        />
                        <TextField
                          {...register(`stations.${i}.minHourly`)}
                          label={`${t("settings.stationMinHourly")} ${t("settings.optional")}`}
                          inputMode="decimal"
                          error={err(`stations.${i}.minHourly`)}
                        />
                      </div>
                    )}
                  </div>
                );
              })}
            </fieldset>
          ))}
          {err("stations") && (
            <p className="field-error" role="alert">
              {err("stations")}
            </p>
          )}
        </fieldset>

        <fieldset className="card settings-section settings-grid">
          <legend>{t("settings.money")}</legend>
          <TextField {...register("minPay")} label={t("settings.minPay")} inputMode="decimal" error={err("minPay")} />
          <TextField {...register("minHourly")} label={t("settings.minHourly")} inputMode="decimal" error={err("minHourly")} />
        </fieldset>

        <fieldset className="card settings-section settings-grid">
          <legend>{t("settings.timing")}</legend>
          <TextField {...register("buffer")} label={t("settings.buffer")} hint={t("settings.bufferHint")} inputMode="numeric" error={err("buffer")} />
          <TextField {...register("minHours")} label={t("settings.minHours")} hint={t("settings.zeroNoLimit")} inputMode="decimal" error={err("minHours")} />
          <TextField {...register("maxHours")} label={t("settings.maxHours")} hint={t("settings.zeroNoLimit")} inputMode="decimal" error={err("maxHours")} />
          <TextField {...register("dailyCap")} label={t("settings.dailyCap")} hint={t("settings.zeroNoLimit")} inputMode="decimal" error={err("dailyCap")} />
        </fieldset>

        <fieldset className="card settings-section">
          <legend>{t("settings.schedule")}</legend>
          <p className="muted">{t("settings.scheduleLead")}</p>
          <Controller
            control={control}
            name="schedule"
            render={({ field }) => <ScheduleEditor value={field.value} onChange={field.onChange} errors={scheduleErrorTexts(err)} />}
          />
          {err("schedule") && (
            <p className="field-error" role="alert">
              {err("schedule")}
            </p>
          )}
        </fieldset>

        <FormMessage>{form.formError ?? err("form")}</FormMessage>
        <div className="actions">
          <button type="submit" className="button" disabled={form.submitting}>
            {form.submitting ? t("settings.saving") : t("settings.save")}
          </button>
        </div>
      </form>
    </section>
  );
}
