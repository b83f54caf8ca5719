import { TourProvider, useTour } from "@reactour/tour";
import { Component, lazy, type ReactNode, Suspense, useEffect, useId, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { dayMinus, MAX_DASHBOARD_DAYS, type PeriodFigures } from "../../../../shared/admin-dashboard";
import { calendarDay, localTimeZone } from "../../../../shared/audience";
import { DASHBOARD_NS } from "../../../i18n/admin-dashboard";
import { formatCount, formatDay, formatMoney } from "../format";
import { useDashboardFigures, useDashboardSeries } from "./api";
import { markTourSeen, tourOptions, tourSeen, tourSteps } from "./tour";
import "./dashboard.css";

// uPlot and the charts load in a chunk of their own, after the figures.
const DashboardCharts = lazy(() => import("./DashboardCharts"));

const PRESETS = [1, 7, 30, 90, 365] as const;
const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / 86_400_000;

/** /admin: today's and a range's figures, the live counts, charts per day, and the guided tour. */
export default function DashboardPage() {
  const { t } = useTranslation(DASHBOARD_NS);
  return (
    <TourProvider steps={tourSteps(t)} {...tourOptions(t)}>
      <Dashboard />
    </TourProvider>
  );
}

function Dashboard() {
  const { t, i18n } = useTranslation(DASHBOARD_NS);
  const language = i18n.language;
  const zone = useMemo(() => localTimeZone() ?? "UTC", []);
  const today = calendarDay(Date.now(), zone);
  const [range, setRange] = useState({ from: dayMinus(today, 29), to: today });
  const problem = range.from > range.to ? "invalid" : dayNumber(range.to) - dayNumber(range.from) >= MAX_DASHBOARD_DAYS ? "tooLong" : null;
  const query = problem || !range.from || !range.to ? null : { ...range, timeZone: zone };
  const figures = useDashboardFigures(query);
  const series = useDashboardSeries(query);
  const { setIsOpen, setCurrentStep } = useTour();
  const fromId = useId();
  const toId = useId();

  // The tour opens by itself on the first visit, once the figures it points at are on the page.
  const loaded = figures.data !== undefined;
  useEffect(() => {
    if (loaded && !tourSeen()) {
      markTourSeen();
      setCurrentStep(0);
      setIsOpen(true);
    }
  }, [loaded, setIsOpen, setCurrentStep]);

  const f = figures.data;
  return (
    <section className="dashboard">
      <div className="dashboard-head">
        <h1>{t("title")}</h1>
        <button
          type="button"
          className="button button-secondary"
          onClick={() => {
            setCurrentStep(0);
            setIsOpen(true);
          }}
          disabled={!f}
        >
          {t("tour.open")}
        </button>
      </div>

      <fieldset className="dashboard-range">
        <legend>{t("range.legend")}</legend>
        <div className="dashboard-range-fields">
          <div className="field">
            <label htmlFor={fromId}>{t("range.from")}</label>
            <input id={fromId} type="date" lang={language} value={range.from} max={today} onChange={(e) => setRange((r) => ({ ...r, from: e.target.value }))} />
          </div>
          <div className="field">
            <label htmlFor={toId}>{t("range.to")}</label>
            <input id={toId} type="date" lang={language} value={range.to} onChange={(e) => setRange((r) => ({ ...r, to: e.target.value }))} />
          </div>
          <div className="dashboard-presets">
            {PRESETS.map((days) => {
              const from = dayMinus(today, days - 1);
              const active = range.from === from && range.to === today;
              return (
                <button
                  key={days}
                  type="button"
                  className={active ? "chip chip-active" : "chip"}
                  aria-pressed={active}
                  onClick={() => setRange({ from, to: today })}
                >
                  {t(`range.presets.${days === 1 ? "today" : days}`)}
                </button>
              );
            })}
          </div>
        </div>
        <p className="muted small">{t("range.timeZone", { zone })}</p>
        {problem && (
          <p className="field-error" role="alert">
            {t(`range.${problem}`)}
          </p>
        )}
      </fieldset>

      {figures.error && !f ? (
        <div className="alert" role="alert">
          <p>{t("error")}</p>
          <button type="button" className="button button-secondary" onClick={() => void figures.mutate()}>
            {t("retry")}
          </button>
        </div>
      ) : !f ? (
        <div className="loading-block" role="status">
          <span className="spinner" aria-hidden="true" />
          <span>{t("loading")}</span>
        </div>
      ) : (
        <div className={figures.isValidating ? "dashboard-figures busy" : "dashboard-figures"} aria-busy={figures.isValidating || undefined}>
          <section className="figure-group" data-tour="live" aria-labelledby="now-heading">
            <h2 id="now-heading">{t("now.heading")}</h2>
            <div className="figure-grid">
              <Figure label={t("now.active")} value={formatCount(f.active, language)} hint={t("now.activeHint")} />
              <Figure label={t("now.registeredToday")} value={formatCount(f.todayFigures.registered, language)} />
              <Figure
                label={t("now.disconnected")}
                value={formatCount(f.disconnected, language)}
                hint={t("now.disconnectedHint", { n: formatCount(f.disconnectedWithService, language) })}
              />
            </div>
          </section>
          <section className="figure-group" data-tour="database" aria-labelledby="db-heading">
            <h2 id="db-heading" className="visually-hidden">
              {t("now.drivers")}
            </h2>
            <div className="figure-grid">
              <Figure label={t("now.drivers")} value={formatCount(f.drivers, language)}>
                <Link to="/admin/users">{t("now.driversLink")}</Link>
              </Figure>
            </div>
          </section>
          <section className="figure-group" data-tour="paid" aria-label={t("period.paidUsers")}>
            <div className="period-columns">
              <Period title={t("period.today")} figures={f.todayFigures} />
              <Period title={t("period.range", { from: formatDay(f.from), to: formatDay(f.to) })} figures={f.rangeFigures} />
            </div>
          </section>
        </div>
      )}

      {series.data && (
        <section className="dashboard-charts" aria-labelledby="charts-heading">
          <h2 id="charts-heading">{t("charts.heading")}</h2>
          <ChartBoundary fallback={<p className="alert">{t("error")}</p>}>
            <Suspense
              fallback={
                <div className="loading-block" role="status">
                  <span className="spinner" aria-hidden="true" />
                  <span>{t("charts.loading")}</span>
                </div>
              }
            >
              <DashboardCharts series={series.data} />
            </Suspense>
          </ChartBoundary>
        </section>
      )}
    </section>
  );
}

function Period({ title, figures: p }: { title: string; figures: PeriodFigures }) {
  const { t, i18n } = useTranslation(DASHBOARD_NS);
  const n = (v: number) => formatCount(v, i18n.language);
  return (
    <div className="period">
      <h2>{title}</h2>
      <div className="figure-grid">
        <Figure label={t("period.paidUsers")} value={n(p.paidUsers)} hint={t("period.paidUsersHint", { payments: n(p.payments) })} strong />
        <Figure label={t("period.revenue")} value={formatMoney(p.revenueCents, i18n.language)} strong />
        <Figure label={t("period.registered")} value={n(p.registered)} />
        <Figure label={t("period.blocksWon")} value={n(p.blocksWon)} />
        <Figure label={t("period.messagesSent")} value={n(p.messagesSent)} />
        <Figure label={t("period.messagesFailed")} value={n(p.messagesFailed)} />
      </div>
    </div>
  );
}

function Figure({ label, value, hint, strong, children }: { label: string; value: string; hint?: string; strong?: boolean; children?: ReactNode }) {
  return (
    <div className={strong ? "figure figure-strong" : "figure"}>
      <div className="figure-label">{label}</div>
      <div className="figure-value">{value}</div>
      {hint && <div className="figure-hint muted">{hint}</div>}
      {children}
    </div>
  );
}

/** A chart that cannot draw (no canvas) must not take the figures down with it. */
class ChartBoundary extends Component<{ fallback: ReactNode; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override componentDidCatch(error: unknown) {
    console.error("A dashboard chart failed", error);
  }
  override render() {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}
