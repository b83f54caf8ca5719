import { useCallback, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useSearchParams } from "react-router";
import { formatUsPhone } from "../../../../shared/phone";
import { Badge } from "../../../components/ui/Badge";
import { DataTable } from "../../../components/ui/DataTable";
import { Dialog } from "../../../components/ui/Dialog";
import { Pager, usePaging } from "../../../components/ui/Pager";
import { StatusView } from "../../../components/ui/StatusView";
import { ApiClientError } from "../../../lib/api-client";
import { useSession } from "../../../lib/session";
import { billingApi, type ClientRow, type Plan, startOfWeek, useClients } from "../api";
import { day, pagerLabels } from "../format";
import { carriedQuery } from "../PaymentPage";
import { PlanCards } from "../PlanCards";

/**
 * The reseller's clients (who registered with the code), searched and paged, each with this week's
 * won blocks: pay a plan for one from a dialog (to the checkout and back to /flex/reseller), or open
 * their calendar.
 */
export function ClientsCard() {
  const { t } = useTranslation("billing");
  // A reseller's clients registered for the reseller's own app.
  const app = useSession().user?.app ?? "flex";
  const [params] = useSearchParams();
  const paging = usePaging();
  const [search, setSearch] = useState("");
  const [paying, setPaying] = useState<ClientRow | null>(null);
  const [payError, setPayError] = useState<string | null>(null);
  const weekStart = useRef(startOfWeek()).current;
  const { data, error, isLoading, isValidating, mutate } = useClients({ page: paging.page, pageSize: paging.pageSize, q: search, weekStart });

  const pay = useCallback(
    async (plan: Plan, idempotencyKey: string) => {
      if (!paying) return;
      setPayError(null);
      try {
        const { url } = await billingApi.checkout({
          planId: plan.id,
          idempotencyKey,
          forUserId: paying.id,
          returnPath: "/flex/reseller",
          returnQuery: carriedQuery(params),
        });
        window.location.assign(url);
      } catch (err) {
        setPayError(err instanceof ApiClientError && err.status === 429 ? "errors.tooMany" : "errors.couldntStart");
        throw err;
      }
    },
    [paying, params],
  );

  return (
    <section className="card billing-card" aria-labelledby="clients-title">
      <div className="card-header">
        <h2 id="clients-title">{t("clients.title")}</h2>
        <input
          type="search"
          className="clients-search"
          aria-label={t("clients.search")}
          placeholder={t("clients.search")}
          value={search}
          onChange={(e) => {
            setSearch(e.target.value);
            paging.restart();
          }}
        />
      </div>
      {error ? (
        <StatusView kind="error" compact title={t("clients.loadError")} onRetry={() => void mutate()} />
      ) : isLoading || !data ? (
        <StatusView kind="loading" compact />
      ) : (
        <>
          <DataTable<ClientRow>
            caption={t("clients.title")}
            busy={isValidating && !isLoading}
            rows={data.rows}
            rowKey={(r) => r.id}
            empty={search ? t("clients.noMatch") : t("clients.empty")}
            columns={[
              { key: "name", header: t("clients.name"), cell: (r) => r.name },
              { key: "phone", header: t("clients.phone"), cell: (r) => formatUsPhone(r.phoneNumber) || r.phoneNumber },
              { key: "expires", header: t("clients.expires"), cell: (r) => (r.expirationAt === null ? t("clients.never") : day(r.expirationAt)) },
              {
                key: "system",
                header: t("clients.system"),
                cell: (r) => <Badge tone={r.status === "start" ? "success" : "neutral"}>{r.status === "start" ? t("clients.on") : t("clients.off")}</Badge>,
              },
              { key: "won", header: t("clients.wonThisWeek"), cell: (r) => r.blocksWonThisWeek, className: "numeric" },
              {
                key: "actions",
                header: <span className="visually-hidden">{t("clients.actions")}</span>,
                cell: (r) => (
                  <div className="actions actions-compact">
                    <button type="button" className="button button-small" onClick={() => setPaying(r)}>
                      {t("clients.pay")}
                      <span className="visually-hidden"> {r.name}</span>
                    </button>
                    <Link className="button button-small button-secondary" to={`/flex/calendar/${encodeURIComponent(r.phoneNumber)}`}>
                      {t("clients.calendar")}
                      <span className="visually-hidden"> {r.name}</span>
                    </Link>
                  </div>
                ),
              },
            ]}
          />
          <Pager {...paging.pager} total={data.total} labels={pagerLabels(t)} />
        </>
      )}
      <Dialog
        open={paying !== null}
        onClose={() => {
          setPaying(null);
          setPayError(null);
        }}
        title={paying ? t("clients.payTitle", { name: paying.name }) : ""}
        wide
      >
        {paying && (
          <>
            {payError && (
              <p className="alert" role="alert">
                {t(payError)}
              </p>
            )}
            <p className="muted">{t("clients.payHint", { name: paying.name })}</p>
            <PlanCards app={app} currentExpiration={paying.expirationAt} onPay={pay} />
          </>
        )}
      </Dialog>
    </section>
  );
}
