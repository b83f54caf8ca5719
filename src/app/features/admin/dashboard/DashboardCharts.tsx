import { useMemo } from "react";
import { useTranslation } from "react-i18next";
import type { DashboardSeries } from "../../../../shared/admin-dashboard";
import { DASHBOARD_NS } from "../../../i18n/admin-dashboard";
import { BAR_COLORS, Chart } from "../Chart";

/** The dashboard's charts, in their own chunk (uPlot is only needed here). */
export default function DashboardCharts({ series }: { series: DashboardSeries }) {
  const { t } = useTranslation(DASHBOARD_NS);
  const charts = useMemo(
    () => [
      { title: t("charts.signups"), lines: [{ label: t("charts.signups"), values: series.signups, color: BAR_COLORS.brand }] },
      {
        title: t("charts.paymentsAndRevenue"),
        lines: [
          { label: t("charts.payments"), values: series.payments, color: BAR_COLORS.blue },
          { label: t("charts.revenue"), values: series.revenueCents, color: BAR_COLORS.accent, money: true },
        ],
      },
      { title: t("charts.blocksWon"), lines: [{ label: t("charts.blocksWon"), values: series.blocksWon, color: BAR_COLORS.brand }] },
      {
        title: t("charts.messages"),
        lines: [
          { label: t("charts.messagesSent"), values: series.messagesSent, color: BAR_COLORS.blue },
          { label: t("charts.messagesFailed"), values: series.messagesFailed, color: BAR_COLORS.danger },
        ],
      },
    ],
    [series, t],
  );
  return (
    <div className="charts">
      {charts.map((c) => (
        <Chart key={c.title} title={c.title} days={series.days} lines={c.lines} />
      ))}
    </div>
  );
}
