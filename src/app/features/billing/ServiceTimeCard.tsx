import { useTranslation } from "react-i18next";
import { DataTable } from "../../components/ui/DataTable";
import { Pager, usePaging } from "../../components/ui/Pager";
import { StatusView } from "../../components/ui/StatusView";
import { type ServiceTimeRow, useServiceTime } from "./api";
import { day, pagerLabels } from "./format";
import "../../i18n/billing";
import "./billing.css";

/**
 * The driver's service-time ledger (docs/payments.md): every change to their expiration, with its
 * cause (a payment, a refund, a dispute and its outcome, a free week and its reversal, an
 * administrator's adjustment), the days it moved and the expiration it left.
 */
export function ServiceTimeCard() {
  const { t } = useTranslation("billing");
  const paging = usePaging();
  const { data, error, isLoading, isValidating, mutate } = useServiceTime(paging.page, paging.pageSize);

  return (
    <section className="card billing-card" aria-labelledby="service-time-card-title">
      <div className="card-header">
        <h2 id="service-time-card-title">{t("serviceTime.title")}</h2>
      </div>
      {error ? (
        <StatusView kind="error" compact title={t("serviceTime.loadError")} onRetry={() => void mutate()} />
      ) : isLoading || !data ? (
        <StatusView kind="loading" compact />
      ) : (
        <>
          <DataTable<ServiceTimeRow>
            caption={t("serviceTime.title")}
            busy={isValidating && !isLoading}
            rows={data.rows}
            rowKey={(r) => r.id}
            empty={t("serviceTime.empty")}
            columns={[
              { key: "date", header: t("serviceTime.date"), cell: (r) => day(r.createdAt) },
              { key: "kind", header: t("serviceTime.kind"), cell: (r) => t(`serviceTime.kinds.${r.kind}`) },
              { key: "days", header: t("serviceTime.days"), cell: (r) => (r.days > 0 ? `+${r.days}` : String(r.days)), className: "numeric" },
              { key: "until", header: t("serviceTime.until"), cell: (r) => day(r.expirationAfter) },
            ]}
          />
          <Pager {...paging.pager} total={data.total} labels={pagerLabels(t)} />
        </>
      )}
    </section>
  );
}
