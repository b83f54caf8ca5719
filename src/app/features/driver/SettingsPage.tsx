import { useMemo } from "react";
import { Controller, type FieldErrors, type Resolver, useForm } from "react-hook-form";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import type { DriverFilters } from "../../../shared/driver-filters";
import { FormMessage, TextField } from "../../components/ui/FormField";
import { StatusView } from "../../components/ui/StatusView";
import { toast } from "../../components/ui/Toast";
import { ApiClientError } from "../../lib/api-client";
import { useSession } from "../../lib/session";
import { driverApi, type Station, useFilters, useStations } from "./api";
import { type FiltersFormValues, type FormErrors, fromFormValues, toFormValues } from "./filters-form";
import { ScheduleEditor } from "./ScheduleEditor";
import "./driver.css";
import "../../i18n/auth";
import "../../i18n/driver";

/** The shared schema as react-hook-form's resolver: flat error keys become its nested errors. */
const filtersResolver: Resolver<FiltersFormValues, unknown, DriverFilters> = (values) => {
  const result = fromFormValues(values);
  if (result.errors === null) return { values: result.filters, errors: {} };
  const errors: Record<string, unknown> = {};
  for (const [path, message] of Object.entries(result.errors)) {
    const parts = path.split(".");
    let node = errors;
    for (const part of parts.slice(0, -1)) {
      node[part] ??= {};
      node = node[part] as Record<string, unknown>;
    }
    node[parts[parts.length - 1]!] = { type: "validate", message };
  }
  return { values: {}, errors: errors as FieldErrors<FiltersFormValues> };
};

/** The translated message at a dotted path of the form's errors, if any. */
function errorAt(errors: FieldErrors<FiltersFormValues>, path: string, t: (k: string) => string): string | null {
  const found = path.split(".").reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], errors) as
    | { message?: string }
    | undefined;
  return found?.message ? t(found.message) : null;
}

/**
 * /flex/settings: stations (or Spark delivery areas) from the platform grouped by region, each
 * with optional own minimums; minimum pay and $/hour; arrival buffer; block length; daily cap;
 * the weekly schedule. Validated with the same schema as the server; saving a valid set completes
 * setup (routing step 4).
 */
export default function SettingsPage() {
  const { t } = useTranslation("driver");
  const stations = useStations();
  const filters = useFilters();
  if (stations.error || filters.error) {
    return (
      <section className="driver-page">
        <h1>{t("common:titles.flexSettings")}</h1>
        <StatusView
          kind="error"
          message={t("common:errors.couldntConfigureSchedule")}
          onRetry={() => {
            void stations.mutate();
            void filters.mutate();
          }}
        />
      </section>
    );
  }
  if (!stations.data || !filters.data) return <StatusView kind="loading" />;
  return <SettingsForm stations={stations.data.stations} saved={filters.data.filters} />;
}

function SettingsForm({ stations, saved }: { stations: Station[]; saved: DriverFilters | null }) {
  const { t } = useTranslation("driver");
  const navigate = useNavigate();
  const { user, reloadUser } = useSession();
  const app = user?.app ?? "flex";
  const platform = t(`platform.${app}`);
  const initial = useMemo(() => toFormValues(stations, saved), [stations, saved]);
  const form = useForm<FiltersFormValues, unknown, DriverFilters>({ defaultValues: initial, resolver: filtersResolver });
  const { register, control, handleSubmit, formState, setError, watch } = form;
  const errors = formState.errors as FieldErrors<FiltersFormValues> & { form?: { message?: string } };
  const err = (path: string) => errorAt(errors, path, t);
  const chosen = watch("stations");

  const regions = useMemo(() => {
    const byRegion = new Map<string, number[]>();
    for (const [i, s] of stations.entries()) byRegion.set(s.region, [...(byRegion.get(s.region) ?? []), i]);
    return [...byRegion.entries()];
  }, [stations]);

  const save = handleSubmit(
    async (filters) => {
      try {
        await driverApi.saveFilters(filters);
        await reloadUser();
        toast.success(t("settings.saved"));
        void navigate("/flex/dashboard");
      } catch (e) {
        const details = e instanceof ApiClientError && Array.isArray(e.details) ? (e.details as { path?: string; message?: string }[]) : [];
        const unknown = details.find((d) => d.message === "unknown_station");
        if (unknown) setError("stations", { message: "driver:errors.unknown_station" });
        else
          setError("root", {
            message: e instanceof ApiClientError && e.code === "network_error" ? "auth:errors.network" : "common:errors.couldntConfigureSchedule",
          });
      }
    },
    () => requestAnimationFrame(() => document.querySelector<HTMLElement>('.driver-settings [aria-invalid="true"]')?.focus()),
  );

  const scheduleErrors: FormErrors = {};
  for (const day of ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]) {
    const dayError = err(`schedule.${day}`);
    if (dayError) scheduleErrors[day] = dayError;
    for (let i = 0; i < 6; i++) {
      const e = err(`schedule.${day}.${i}`);
      if (e) scheduleErrors[`${day}.${i}`] = e;
    }
  }

  return (
    <section className="driver-page driver-settings">
      <h1>{t("common:titles.flexSettings")}</h1>
      <p className="muted">{t("settings.lead")}</p>
      <form onSubmit={save} noValidate className="driver-form">
        <fieldset className="card settings-section">
          <legend>{t(`settings.stations.${app}`)}</legend>
          <p className="muted">{t(`settings.stationsLead.${app}`)}</p>
          {stations.length === 0 && <StatusView kind="empty" title={t("settings.noStations", { platform })} compact />}
          {regions.map(([region, indexes]) => (
            <fieldset key={region} className="station-region">
              <legend>
                {region} <span className="muted">{t("settings.selectedCount", { count: indexes.filter((i) => chosen[i]?.selected).length })}</span>
              </legend>
              {indexes.map((i) => {
                const s = stations[i]!;
                return (
                  <div key={s.id} className="station-row">
                    <label className="check">
                      <input type="checkbox" {...register(`stations.${i}.selected`)} aria-invalid={err("stations") ? true : undefined} /> {s.name}
                    </label>
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
            render={({ field }) => <ScheduleEditor value={field.value} onChange={field.onChange} errors={scheduleErrors} />}
          />
          {err("schedule") && (
            <p className="field-error" role="alert">
              {err("schedule")}
            </p>
          )}
        </fieldset>

        <FormMessage>{errors.root?.message ? t(errors.root.message) : errors.form?.message ? t(errors.form.message) : null}</FormMessage>
        <div className="actions">
          <button type="submit" className="button" disabled={formState.isSubmitting}>
            {formState.isSubmitting ? t("settings.saving") : t("settings.save")}
          </button>
        </div>
      </form>
    </section>
  );
}
