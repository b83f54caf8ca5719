import { useTranslation } from "react-i18next";
import { Badge } from "../../../components/ui/Badge";
import { DataTable } from "../../../components/ui/DataTable";
import { Pager, usePaging } from "../../../components/ui/Pager";
import { StatusView } from "../../../components/ui/StatusView";
import { type CommissionRow, useCommissions } from "../api";
import { day, money, pagerLabels } from "../format";

/** The commissions earned on clients' payments, paged: owed, paid, or taken back with a refund. */
export function CommissionsCard() {
  const { t, i18n } = useTranslation("billing");
  const paging = usePaging();
  const { data, error, isLoading, isValidating, mutate } = useCommissions(paging.page, paging.pageSize);
  return (
    <section className="card billing-card" aria-labelledby="commissions-title">
      <div className="card-header">
        <h2 id="commissions-title">{t("commissions.title")}</h2>
      </div>
      {error ? (
        <StatusView kind="error" compact title={t("commissions.loadError")} onRetry={() => void mutate()} />
      ) : isLoading || !data ? (
        <StatusView kind="loading" compact />
      ) : (
        <>
          <DataTable<CommissionRow>
            caption={t("commissions.title")}
            busy={isValidating && !isLoading}
            rows={data.rows}
            rowKey={(r) => r.id}
            empty={t("commissions.empty")}
            columns={[
              { key: "date", header: t("commissions.date"), cell: (r) => day(r.createdAt) },
              { key: "client", header: t("commissions.client"), cell: (r) => r.clientName },
              { key: "payment", header: t("commissions.payment"), cell: (r) => money(r.paymentCents, i18n.language), className: "numeric" },
              { key: "amount", header: t("commissions.amount"), cell: (r) => money(r.amountCents, i18n.language), className: "numeric" },
              {
                key: "status",
                header: t("commissions.status"),
                cell: (r) => (
                  <Badge tone={r.status === "paid" ? "success" : r.status === "reversed" ? "warning" : "neutral"}>{t(`commissionStatus.${r.status}`)}</Badge>
                ),
              },
            ]}
          />
          <Pager {...paging.pager} total={data.total} labels={pagerLabels(t)} />
        </>
      )}
    </section>
  );
}
