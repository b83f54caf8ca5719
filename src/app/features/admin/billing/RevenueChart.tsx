import { useMemo } from "react";
import { useTranslation } from "react-i18next";
import { BILLING_NS } from "../../../i18n/admin-billing";
import { BAR_COLORS, Chart } from "../Chart";

/** Payments and revenue per day over the billing page's range, in their own chunk (uPlot). */
export default function RevenueChart({ days, revenueCents, payments }: { days: string[]; revenueCents: number[]; payments: number[] }) {
  const { t } = useTranslation(BILLING_NS);
  // The chart redraws when its lines change: keep them the same object between renders.
  const lines = useMemo(
    () => [
      { label: t("payments.count"), values: payments, color: BAR_COLORS.blue },
      { label: t("payments.net"), values: revenueCents, color: BAR_COLORS.accent, money: true },
    ],
    [t, payments, revenueCents],
  );
  return <Chart title={t("payments.chart")} days={days} lines={lines} />;
}
