import { type ChangeEvent, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import type { DriverFilters } from "../../../shared/driver-filters";
import type { InsightPeriod, MarketReport, ReplayTotals, WhatIfResult } from "../../../shared/insights";
import { confirmedAction } from "../../components/ui/confirmed-action";
import { useConfirm } from "../../components/ui/Dialog";
import { TextField } from "../../components/ui/FormField";
import { StatusView } from "../../components/ui/StatusView";
import { INSIGHTS_NS } from "../../i18n/insights";
import { ApiClientError } from "../../lib/api-client";
import { useSession } from "../../lib/session";
import { driverApi } from "./api";
import { waitMessage } from "./connect-errors";
import { type FiltersFormValues, fromFormValues, type StationOption, toFormValues } from "./filters-form";
import { count, money } from "./format";
import { useSavedFilters, useWhatIf, type Whose } from "./insights-api";
import { ScheduleEditor } from "./ScheduleEditor";

type Props = {
  days: InsightPeriod;
  driverId: Whose;
  readOnly: boolean;
  /** The stations the offers came from: with the saved filters' own, the what-if's choices. */
  market: MarketReport;
};

/**
 * The what-if: the driver's filters, changed at will, replayed over the offers of the period; the
 * result follows the form at once (a debounced request), beside what the system did take. The
 * driver may make them their filters in one tap (after a confirm); an administrator only looks.
 * The insights page loads it when its section comes near the screen (it carries the form's zod
 * checks, the schedule editor and the confirm dialog).
 */
export default function WhatIf({ days, driverId, readOnly, market }: Props) {
  const { t } = useTranslation(INSIGHTS_NS);
  const saved = useSavedFilters(driverId);
  const filters = (saved.data?.filters ?? null) as DriverFilters | null;
  const initial = useMemo(() => toFormValues(stationsFrom(filters, market), filters), [filters, market]);

  if (saved.error && !saved.data) return <StatusView kind="error" compact message={t("whatIf.loadError")} onRetry={() => void saved.mutate()} />;
  if (!saved.data) return <StatusView kind="loading" compact />;
  return (
    <WhatIfForm
      // A new saved set (just applied) starts the form again from it.
      key={JSON.stringify(filters)}
      initial={initial}
      days={days}
      driverId={driverId}
      readOnly={readOnly}
      onApplied={(next) => saved.mutate({ filters: next } as typeof saved.data, { revalidate: false })}
    />
  );
}

/**
 * The stations of the offers and of the saved filters: a station with no offer in the period would
 * change nothing in the replay, so the platform's whole list is not asked for.
 */
function stationsFrom(filters: DriverFilters | null, market: MarketReport): StationOption[] {
  const byId = new Map<string, StationOption>();
  for (const s of market.byStation) byId.set(s.stationId, { id: s.stationId, name: s.stationName, timeZone: "" });
  for (const s of filters?.stations ?? []) if (!byId.has(s.id)) byId.set(s.id, { id: s.id, name: s.id, timeZone: "" });
  return [...byId.values()];
}

function WhatIfForm({
  initial,
  days,
  driverId,
  readOnly,
  onApplied,
}: {
  initial: FiltersFormValues;
  days: InsightPeriod;
  driverId: Whose;
  readOnly: boolean;
  onApplied: (filters: DriverFilters) => void;
}) {
  const { t } = useTranslation(INSIGHTS_NS);
  const { t: td } = useTranslation("driver");
  const { reloadUser } = useSession();
  const [values, setValues] = useState(initial);
  const [applying, setApplying] = useState(false);
  const [confirm, confirmDialog] = useConfirm();
  const checked = useMemo(() => fromFormValues(values), [values]);
  const start = useMemo(() => JSON.stringify(fromFormValues(initial).filters), [initial]);
  const filters = checked.filters;
  const changed = filters !== null && JSON.stringify(filters) !== start;
  const whatIf = useWhatIf(filters, days, driverId);

  const set = <K extends keyof FiltersFormValues>(field: K, value: FiltersFormValues[K]) => setValues((v) => ({ ...v, [field]: value }));
  const setStation = (index: number, change: Partial<FiltersFormValues["stations"][number]>) =>
    setValues((v) => ({ ...v, stations: v.stations.map((s, i) => (i === index ? { ...s, ...change } : s)) }));
  const error = (field: string): string | null => {
    const key = checked.errors?.[field];
    return key ? t(key) : null;
  };
  const field = (name: "minPay" | "minHourly" | "buffer" | "minHours" | "maxHours" | "dailyCap") => ({
    value: values[name],
    onChange: (e: ChangeEvent<HTMLInputElement>) => set(name, e.target.value),
    error: error(name),
  });
  const scheduleErrors = Object.fromEntries(
    Object.entries(checked.errors ?? {})
      .filter(([path]) => path.startsWith("schedule."))
      .map(([path, key]) => [path.slice("schedule.".length), t(key)]),
  );
  const chosen = values.stations.filter((s) => s.selected).length;

  const apply = async () => {
    if (!filters) return;
    setApplying(true);
    await confirmedAction({
      confirm: () => confirm({ title: t("whatIf.applyTitle"), message: t("whatIf.applyMessage"), confirmLabel: t("whatIf.applyConfirm") }),
      loading: t("whatIf.applying"),
      run: async () => {
        await driverApi.saveFilters(filters);
        await reloadUser();
        onApplied(filters);
      },
      success: () => t("whatIf.applied"),
      failure: (err) => {
        const details = err instanceof ApiClientError && Array.isArray(err.details) ? (err.details as { message?: string }[]) : [];
        if (details.some((d) => d.message === "unknown_station")) return td("errors.unknown_station");
        return err instanceof ApiClientError && err.code !== "network_error" ? err.message : t("whatIf.applyError");
      },
    });
    setApplying(false);
  };

  return (
    <>
      <WhatIfAnswer days={days} result={whatIf.result} busy={whatIf.busy} error={whatIf.error} invalid={filters === null} onRetry={whatIf.retry} />
      <form className="driver-form whatif-form" noValidate onSubmit={(e) => e.preventDefault()}>
        <fieldset className="settings-section settings-grid">
          <legend>{td("settings.money")}</legend>
          <TextField label={td("settings.minPay")} inputMode="decimal" {...field("minPay")} />
          <TextField label={td("settings.minHourly")} inputMode="decimal" {...field("minHourly")} />
        </fieldset>
        <fieldset className="settings-section settings-grid">
          <legend>{td("settings.timing")}</legend>
          <TextField label={td("settings.buffer")} inputMode="numeric" {...field("buffer")} />
          <TextField label={td("settings.minHours")} hint={td("settings.zeroNoLimit")} inputMode="decimal" {...field("minHours")} />
          <TextField label={td("settings.maxHours")} hint={td("settings.zeroNoLimit")} inputMode="decimal" {...field("maxHours")} />
          <TextField label={td("settings.dailyCap")} hint={td("settings.zeroNoLimit")} inputMode="decimal" {...field("dailyCap")} />
        </fieldset>
        <details className="whatif-more" open={Boolean(error("stations")) || undefined}>
          <summary>
            {t("whatIf.stations")} <span className="muted">{td("settings.selectedCount", { count: chosen })}</span>
          </summary>
          <fieldset className="settings-section">
            <legend className="visually-hidden">{t("whatIf.stations")}</legend>
            {values.stations.map((s, i) => (
              <div key={s.id} className="station-row">
                <label className="check">
                  <input
                    type="checkbox"
                    checked={s.selected}
                    aria-invalid={error("stations") ? true : undefined}
                    onChange={(e) => setStation(i, { selected: e.target.checked })}
                  />{" "}
                  {s.name}
                </label>
                {s.selected && (
                  <div className="station-minimums">
                    <TextField
                      label={`${td("settings.stationMinPay")} ${td("settings.optional")}`}
                      aria-label={`${s.name}: ${td("settings.stationMinPay")} ${td("settings.optional")}`}
                      inputMode="decimal"
                      value={s.minPay}
                      onChange={(e) => setStation(i, { minPay: e.target.value })}
                      error={error(`stations.${i}.minPay`)}
                    />
                    <TextField
                      label={`${td("settings.stationMinHourly")} ${td("settings.optional")}`}
                      aria-label={`${s.name}: ${td("settings.stationMinHourly")} ${td("settings.optional")}`}
                      inputMode="decimal"
                      value={s.minHourly}
                      onChange={(e) => setStation(i, { minHourly: e.target.value })}
                      error={error(`stations.${i}.minHourly`)}
                    />
                  </div>
                )}
              </div>
            ))}
            {error("stations") && <p className="field-error">{error("stations")}</p>}
          </fieldset>
        </details>
        <details className="whatif-more" open={Boolean(error("schedule")) || Object.keys(scheduleErrors).length > 0 || undefined}>
          <summary>{td("settings.schedule")}</summary>
          <ScheduleEditor value={values.schedule} onChange={(schedule) => set("schedule", schedule)} errors={scheduleErrors} />
          {error("schedule") && <p className="field-error">{error("schedule")}</p>}
        </details>
        <div className="actions">
          {!readOnly && (
            <button type="button" className="button" disabled={!changed || applying} onClick={() => void apply()}>
              {t("whatIf.apply")}
            </button>
          )}
          <button type="button" className="button button-secondary" disabled={!changed && filters !== null} onClick={() => setValues(initial)}>
            {t(readOnly ? "whatIf.resetAdmin" : "whatIf.reset")}
          </button>
        </div>
      </form>
      {confirmDialog}
    </>
  );
}

/** The replay's answer beside what the system took; the last one stays while the next is worked out. */
function WhatIfAnswer({
  days,
  result,
  busy,
  error,
  invalid,
  onRetry,
}: {
  days: InsightPeriod;
  result: WhatIfResult | null;
  busy: boolean;
  error: Error | null;
  invalid: boolean;
  onRetry: () => void;
}) {
  const { t, i18n } = useTranslation(INSIGHTS_NS);
  const lang = i18n.language;
  const hours = (r: ReplayTotals) => count(Math.round((r.minutes / 60) * 10) / 10, lang);
  // Too many what-ifs in a minute: how long to wait.
  const wait = waitMessage(error);
  return (
    <div className="whatif-answer" aria-busy={busy || undefined}>
      <div className="whatif-answer-head">
        <h3>{t("whatIf.resultTitle", { count: result?.days ?? days })}</h3>
        {busy && (
          <span className="whatif-busy muted">
            <span className="spinner" aria-hidden="true" />
            {t("whatIf.busy")}
          </span>
        )}
      </div>
      {invalid && <p className="field-error">{t("whatIf.invalid")}</p>}
      {error && (
        <div className="alert" role="alert">
          <p>{wait ? t(wait.key, wait.values) : t("whatIf.error")}</p>
          <button type="button" className="button button-secondary button-small" onClick={onRetry}>
            {t("common:retry")}
          </button>
        </div>
      )}
      {result ? (
        <>
          <table className="data-table whatif-table">
            <caption className="visually-hidden">{t("whatIf.tableCaption", { count: result.days, offers: count(result.offers, lang) })}</caption>
            <thead>
              <tr>
                <td />
                <th scope="col">{t("whatIf.took")}</th>
                <th scope="col">{t("whatIf.would")}</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <th scope="row">{t("whatIf.blocks")}</th>
                <td>{count(result.actual.blocks, lang)}</td>
                <td>{count(result.replay.blocks, lang)}</td>
              </tr>
              <tr>
                <th scope="row">{t("whatIf.hours")}</th>
                <td>{hours(result.actual)}</td>
                <td>{hours(result.replay)}</td>
              </tr>
              <tr>
                <th scope="row">{t("whatIf.pay")}</th>
                <td>{money(result.actual.payCents, lang)}</td>
                <td>{money(result.replay.payCents, lang)}</td>
              </tr>
            </tbody>
          </table>
          <p aria-live="polite">
            {t("whatIf.sentence", {
              count: result.replay.blocks,
              blocks: count(result.replay.blocks, lang),
              pay: money(result.replay.payCents, lang),
              tookBlocks: count(result.actual.blocks, lang),
              tookPay: money(result.actual.payCents, lang),
              offers: count(result.offers, lang),
            })}
          </p>
          <p className="whatif-caveat">
            {result.replay.newlyTaken === 0
              ? t("whatIf.newlyNone")
              : t("whatIf.newly", { count: result.replay.newlyTaken, n: count(result.replay.newlyTaken, lang) })}{" "}
            {result.replay.gone > 0 && t("whatIf.gone", { count: result.replay.gone, n: count(result.replay.gone, lang) })}
          </p>
        </>
      ) : (
        !error && !invalid && <StatusView kind="loading" compact />
      )}
    </div>
  );
}
