import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { Badge, type BadgeTone } from "../../components/ui/Badge";
import { DataTable } from "../../components/ui/DataTable";
import { Pager, usePaging } from "../../components/ui/Pager";
import { StatusView } from "../../components/ui/StatusView";
import { type PaymentRow, type PaymentStatus, usePayments } from "./api";
import { day, money, pagerLabels } from "./format";
import "../../i18n/billing";
import "./billing.css";

const TONES: Record<PaymentStatus, BadgeTone> = { processing: "info", successful: "success", failed: "danger", refunded: "warning" };

/**
 * The driver's payments with their days of service and refunds, and the totals (a dashboard
 * piece; /payment shows it too). `compact` shows the latest five and a link to all of them.
 */
export function PaymentsCard({ compact = false }: { compact?: boolean }) {
  const { t, i18n } = useTranslation("billing");
  const paging = usePaging();
  const pageSize = compact ? 20 : paging.pageSize;
  const { data, error, isLoading, isValidating, mutate } = usePayments(compact ? 1 : paging.page, pageSize);
  const rows = compact ? (data?.rows.slice(0, 5) ?? []) : (data?.rows ?? []);

  return (
    <section className="card billing-card" aria-labelledby="payments-card-title">
      <div className="card-header">
        <h2 id="payments-card-title">{t("history.title")}</h2>
        {compact && <Link to="/payment">{t("history.payOrSeeAll")}</Link>}
      </div>
      {error ? (
        <StatusView kind="error" compact title={t("history.loadError")} onRetry={() => void mutate()} />
      ) : isLoading || !data ? (
        <StatusView kind="loading" compact />
      ) : (
        <>
          <dl className="billing-totals">
            <div>
              <dt>{t("history.daysBought")}</dt>
              <dd>{data.totals.daysSold}</dd>
            </div>
            <div>
              <dt>{t("history.paid")}</dt>
              <dd>{money(data.totals.netCents, i18n.language)}</dd>
            </div>
            <div>
              <dt>{t("history.refunded")}</dt>
              <dd>{money(data.totals.refundedCents, i18n.language)}</dd>
            </div>
          </dl>
          <DataTable<PaymentRow>
            caption={t("history.title")}
            busy={isValidating && !isLoading}
            rows={rows}
            rowKey={(r) => r.id}
            empty={t("history.empty")}
            columns={[
              { key: "date", header: t("history.date"), cell: (r) => day(r.createdAt) },
              { key: "days", header: t("history.days"), cell: (r) => t("plans.days", { count: r.days }) },
              { key: "amount", header: t("history.amount"), cell: (r) => money(r.amountCents, i18n.language), className: "numeric" },
              {
                key: "refunded",
                header: t("history.refundedColumn"),
                cell: (r) => (r.refundedCents > 0 ? money(r.refundedCents, i18n.language) : "—"),
                className: "numeric",
              },
              {
                key: "status",
                header: t("history.status"),
                // A dispute the card network has not given back outweighs the status (docs/payments.md).
                cell: (r) =>
                  r.disputeStatus === "open" || r.disputeStatus === "lost" ? (
                    <Badge tone="danger">{t("status.disputed")}</Badge>
                  ) : (
                    <Badge tone={TONES[r.status]}>{t(`status.${r.status}`)}</Badge>
                  ),
              },
              {
                key: "payer",
                header: t("history.paidBy"),
                cell: (r) => (r.payerId !== null && r.payerId !== r.userId ? (r.payerName ?? "—") : t("history.you")),
              },
            ]}
          />
          {!compact && <Pager {...paging.pager} total={data.total} labels={pagerLabels(t)} />}
        </>
      )}
    </section>
  );
}
