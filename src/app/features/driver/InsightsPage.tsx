import type { TFunction } from "i18next";
import { lazy, Suspense, useDeferredValue, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import {
  EARNINGS_WEEKS,
  type EarningsWeek,
  FIRST_INSIGHT_PERIOD,
  INSIGHT_PERIODS,
  type InsightPeriod,
  type InsightsReport,
  type MarketReport,
  type MarketSlice,
} from "../../../shared/insights";
import { CHART_COLORS, Chart, type ChartColumn, type ChartSeries } from "../../components/ui/Chart";
import { StatusView } from "../../components/ui/StatusView";
import { TableScroll } from "../../components/ui/TableScroll";
import { useAfterPaint } from "../../components/ui/use-after-paint";
import { useInView } from "../../components/ui/use-in-view";
import { INSIGHTS_NS } from "../../i18n/insights";
import { findingWords } from "./findings";
import { count, hourName, money, shortDate, weekdayName, weekdayShort } from "./format";
import { useInsights, type Whose } from "./insights-api";
import { reasonName } from "./why";
import "./driver.css";
import "./insights.css";
import "../../i18n/driver";

const WhatIf = lazy(() => import("./WhatIf"));

/**
 * /flex/insights: what the driver earned (per station-local week), what the market paid over the
 * last 7 or 30 days (by station, hour and weekday, with what became of the offers and why the
 * filters turned them down), this week's findings in words, and a what-if of other filters over
 * the same offers, which one tap makes the driver's filters.
 */
export default function InsightsPage() {
  const { t } = useTranslation(INSIGHTS_NS);
  return (
    <section className="driver-page driver-insights">
      <h1>{t("titles.flexInsights")}</h1>
      <p className="muted">{t("lead")}</p>
      <DriverInsights />
    </section>
  );
}

export type DriverInsightsProps = {
  /** Whose insights: the signed-in driver's, or (an administrator "acting for" them) this driver's. */
  driverId?: number;
  /** An administrator's view: the what-if is shown, its filters are never applied. */
  readOnly?: boolean;
};

/** The insights of a driver: theirs, or seen by an administrator. */
export function DriverInsights({ driverId, readOnly = false }: DriverInsightsProps) {
  const { t } = useTranslation(INSIGHTS_NS);
  const [days, setDays] = useState<InsightPeriod>(FIRST_INSIGHT_PERIOD);
  const report = useInsights(days, driverId);
  // The report's figures render at a transition's priority: React renders them in slices, yielding
  // to the browser between them, instead of one long task when the report lands (on a slow phone
  // the whole page's render was one task of several hundred milliseconds).
  const data = useDeferredValue(report.data);
  // The answer on screen is the last period's while the new one loads (keepPreviousData).
  const loadingOther = report.isLoading && data !== undefined;
  // The market (tables and two charts, below a phone's first screen) is laid out in a frame after
  // the findings and the earnings: two shorter tasks of layout instead of one.
  const belowShown = useAfterPaint(data !== undefined);

  return (
    <div className="insights">
      <fieldset className="insights-period">
        <legend>{t("period.legend")}</legend>
        {INSIGHT_PERIODS.map((d) => (
          <button
            key={d}
            type="button"
            className={`button button-small ${days === d ? "" : "button-secondary"}`}
            aria-pressed={days === d}
            onClick={() => setDays(d)}
          >
            {t("period.days", { count: d })}
          </button>
        ))}
      </fieldset>
      {report.error && !data ? (
        <StatusView kind="error" message={t("error")} onRetry={() => void report.mutate()} />
      ) : !data ? (
        <StatusView kind="loading" />
      ) : isEmpty(data) ? (
        <StatusView
          kind="empty"
          title={t("empty.title")}
          message={t(readOnly ? "empty.messageAdmin" : "empty.message")}
          action={readOnly ? undefined : <Link to="/flex/dashboard">{t("backToDashboard")}</Link>}
        />
      ) : (
        <div className="insights-body" aria-busy={loadingOther || undefined}>
          {/* Another period failed to load: the one on screen stays, and says so. */}
          {report.error && <StatusView kind="error" compact message={t("error")} onRetry={() => void report.mutate()} />}
          <Findings report={data} />
          <Earnings weeks={data.earnings} />
          <Market report={data} laidOut={belowShown} />
        </div>
      )}
      {data && !isEmpty(data) && <WhatIfSection days={days} driverId={driverId} readOnly={readOnly} market={data.market} />}
      {/* Under the figures once they are in: shown under the loading view, the link moved down when they came. */}
      {!readOnly && data && !isEmpty(data) && (
        <p>
          <Link to="/flex/dashboard">{t("backToDashboard")}</Link>
        </p>
      )}
    </div>
  );
}

/**
 * The what-if's section: its heading and lead at once, its form (a chunk of its own) once the
 * section comes near the screen, below the fold on a phone.
 */
function WhatIfSection({ days, driverId, readOnly, market }: { days: InsightPeriod; driverId: Whose; readOnly: boolean; market: MarketReport }) {
  const { t } = useTranslation(INSIGHTS_NS);
  const spot = useRef<HTMLDivElement>(null);
  const near = useInView(spot);
  const loading = <StatusView kind="loading" compact />;
  return (
    <section className="card insights-section insights-whatif" aria-labelledby="insights-whatif">
      <h2 id="insights-whatif">{t("whatIf.title")}</h2>
      <p className="muted">{t(readOnly ? "whatIf.leadAdmin" : "whatIf.lead", { count: days })}</p>
      <div ref={spot}>
        {near ? (
          <Suspense fallback={loading}>
            <WhatIf days={days} driverId={driverId} readOnly={readOnly} market={market} />
          </Suspense>
        ) : (
          loading
        )}
      </div>
    </section>
  );
}

/** Nothing to show: no offer in the period and no block in the weeks. */
function isEmpty(report: InsightsReport): boolean {
  return report.market.totals.shown === 0 && report.earnings.every((w) => w.blocks === 0 && w.forfeits === 0);
}

function Findings({ report }: { report: InsightsReport }) {
  const { t, i18n } = useTranslation(INSIGHTS_NS);
  return (
    <section className="card insights-section" aria-labelledby="insights-findings">
      <h2 id="insights-findings">{t("findings.title")}</h2>
      {report.findings.length === 0 ? (
        <p className="muted">{t("findings.none")}</p>
      ) : (
        <ul className="insights-findings">
          {report.findings.map((f) => {
            const words = findingWords(f, t, i18n.language);
            return <li key={words}>{words}</li>;
          })}
        </ul>
      )}
    </section>
  );
}

const hours = (minutes: number) => Math.round((minutes / 60) * 10) / 10;

function Earnings({ weeks }: { weeks: EarningsWeek[] }) {
  const { t, i18n } = useTranslation(INSIGHTS_NS);
  const lang = i18n.language;
  // The chart redraws when its lines change: they are kept while the weeks are the same.
  const shown = useMemo(() => weeks.slice(-EARNINGS_WEEKS), [weeks]);
  const chart = useMemo(() => {
    const money$ = (v: number) => money(Math.round(v), lang);
    const count$ = (v: number) => count(v, lang);
    const lines: ChartSeries[] = [
      { label: t("earnings.blocks"), values: shown.map((w) => w.blocks), format: count$, color: CHART_COLORS.brand },
      { label: t("earnings.pay"), values: shown.map((w) => w.payCents), format: money$, color: CHART_COLORS.accent, secondary: true },
    ];
    const columns: ChartColumn[] = [
      { label: t("earnings.hours"), values: shown.map((w) => hours(w.minutes)), format: count$ },
      { label: t("earnings.hourly"), values: shown.map((w) => w.hourlyCents), format: money$ },
      { label: t("earnings.forfeits"), values: shown.map((w) => w.forfeits), format: count$ },
    ];
    return { points: shown.map((w) => t("earnings.week", { date: shortDate(w.weekStart, lang) })), lines, columns };
  }, [shown, t, lang]);
  const blocks = shown.reduce((a, w) => a + w.blocks, 0);
  const pay = shown.reduce((a, w) => a + w.payCents, 0);

  return (
    <section className="card insights-section" aria-labelledby="insights-earnings">
      <h2 id="insights-earnings">{t("earnings.title", { count: shown.length })}</h2>
      {blocks === 0 && shown.every((w) => w.forfeits === 0) ? (
        <StatusView kind="empty" compact title={t("earnings.empty")} />
      ) : (
        <Chart
          title={t("earnings.chart")}
          points={chart.points}
          pointHeading={t("earnings.weekOf")}
          lines={chart.lines}
          columns={chart.columns}
          summary={t("earnings.summary", { count: shown.length, blocks: count(blocks, lang), pay: money(pay, lang) })}
          none={t("none")}
        />
      )}
    </section>
  );
}

/** A slice's columns (what became of its offers and its medians) for a chart's table or the stations' table. */
function sliceColumns(slices: MarketSlice[], t: TFunction<"insights">, lang: string): ChartColumn[] {
  const count$ = (v: number) => count(v, lang);
  return [
    { label: t("market.won"), values: slices.map((s) => s.won), format: count$ },
    { label: t("market.gone"), values: slices.map((s) => s.gone), format: count$ },
    { label: t("market.disliked"), values: slices.map((s) => s.disliked), format: count$ },
    { label: t("market.medianPay"), values: slices.map((s) => s.medianPayCents), format: (v) => money(Math.round(v), lang) },
  ];
}

function MarketChart({
  title,
  pointHeading,
  points,
  ticks,
  slices,
}: {
  title: string;
  pointHeading: string;
  points: string[];
  ticks?: string[];
  slices: MarketSlice[];
}) {
  const { t, i18n } = useTranslation(INSIGHTS_NS);
  const lang = i18n.language;
  const chart = useMemo(
    () => ({
      lines: [
        { label: t("market.shown"), values: slices.map((s) => s.shown), format: (v: number) => count(v, lang), color: CHART_COLORS.blue },
        {
          label: t("market.medianHourly"),
          values: slices.map((s) => s.medianHourlyCents),
          format: (v: number) => money(Math.round(v), lang),
          color: CHART_COLORS.accent,
          secondary: true,
        },
      ] satisfies ChartSeries[],
      columns: sliceColumns(slices, t, lang),
    }),
    [slices, t, lang],
  );
  const busiest = slices.reduce<number>((best, s, i) => (s.shown > (slices[best]?.shown ?? -1) ? i : best), 0);
  return (
    <Chart
      title={title}
      points={points}
      ticks={ticks}
      pointHeading={pointHeading}
      lines={chart.lines}
      columns={chart.columns}
      summary={t("market.chartSummary", { point: points[busiest] ?? "", n: count(slices[busiest]?.shown ?? 0, lang) })}
      asTable={t("showTable")}
      none={t("none")}
    />
  );
}

/** The market; until `laidOut`, its heading and that it is coming. */
function Market({ report, laidOut }: { report: InsightsReport; laidOut: boolean }) {
  const { t, i18n } = useTranslation(INSIGHTS_NS);
  const { t: td } = useTranslation("driver");
  const lang = i18n.language;
  const market = report.market;
  const { totals } = market;
  const hourPoints = useMemo(() => market.byHour.map((h) => hourName(h.hour, lang)), [market.byHour, lang]);
  const dayPoints = useMemo(() => market.byWeekday.map((d) => weekdayName(d.weekday, lang)), [market.byWeekday, lang]);
  const dayTicks = useMemo(() => market.byWeekday.map((d) => weekdayShort(d.weekday, lang)), [market.byWeekday, lang]);
  const cell = (cents: number | null) => (cents === null ? t("none") : money(cents, lang));

  return (
    <section className="card insights-section insights-market" aria-labelledby="insights-market">
      <h2 id="insights-market">{t("market.title", { count: market.days })}</h2>
      {!laidOut ? (
        <StatusView kind="loading" compact />
      ) : totals.shown === 0 ? (
        <StatusView kind="empty" compact title={t("market.empty", { count: market.days })} />
      ) : (
        <>
          <p>
            {t("market.totals", {
              count: totals.shown,
              n: count(totals.shown, lang),
              won: count(totals.won, lang),
              gone: count(totals.gone, lang),
              disliked: count(totals.disliked, lang),
            })}{" "}
            {totals.medianHourlyCents !== null &&
              totals.medianPayCents !== null &&
              t("market.medians", { hourly: money(totals.medianHourlyCents, lang), pay: money(totals.medianPayCents, lang) })}
          </p>

          <h3>{t("market.byStation")}</h3>
          <TableScroll label={t("market.byStation")}>
            <table className="data-table insights-table">
              <caption className="visually-hidden">{t("market.byStation")}</caption>
              <thead>
                <tr>
                  <th scope="col">{t("market.station")}</th>
                  <th scope="col">{t("market.shown")}</th>
                  <th scope="col">{t("market.won")}</th>
                  <th scope="col">{t("market.gone")}</th>
                  <th scope="col">{t("market.disliked")}</th>
                  <th scope="col">{t("market.medianHourly")}</th>
                  <th scope="col">{t("market.medianPay")}</th>
                </tr>
              </thead>
              <tbody>
                {market.byStation.map((s) => (
                  <tr key={s.stationId}>
                    <th scope="row">{s.stationName}</th>
                    <td>{count(s.shown, lang)}</td>
                    <td>{count(s.won, lang)}</td>
                    <td>{count(s.gone, lang)}</td>
                    <td>{count(s.disliked, lang)}</td>
                    <td>{cell(s.medianHourlyCents)}</td>
                    <td>{cell(s.medianPayCents)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>

          <div className="insights-charts">
            <MarketChart title={t("market.byHour")} pointHeading={t("market.hour")} points={hourPoints} slices={market.byHour} />
            <MarketChart title={t("market.byWeekday")} pointHeading={t("market.weekday")} points={dayPoints} ticks={dayTicks} slices={market.byWeekday} />
          </div>

          <h3>{t("market.reasons")}</h3>
          {market.reasons.length === 0 ? (
            <p className="muted">{t("market.noReasons")}</p>
          ) : (
            <TableScroll label={t("market.reasons")}>
              <table className="data-table insights-table">
                <caption className="visually-hidden">{t("market.reasons")}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t("market.reason")}</th>
                    <th scope="col">{t("market.offers")}</th>
                  </tr>
                </thead>
                <tbody>
                  {market.reasons.map((r) => (
                    <tr key={r.reason}>
                      <th scope="row">{reasonName(r.reason, td)}</th>
                      <td>{count(r.count, lang)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )}
          <p className="muted">{t("market.goneNote")}</p>
        </>
      )}
    </section>
  );
}
