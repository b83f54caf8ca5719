import { type FormEvent, useCallback, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useSearchParams } from "react-router";
import { formatUsPhone } from "../../../shared/phone";
import { Badge } from "../../components/ui/Badge";
import { DataTable } from "../../components/ui/DataTable";
import { Dialog } from "../../components/ui/Dialog";
import { Pager, usePaging } from "../../components/ui/Pager";
import { StatusView } from "../../components/ui/StatusView";
import { toast } from "../../components/ui/Toast";
import { ApiClientError } from "../../lib/api-client";
import { useSession } from "../../lib/session";
import { billingApi, type ClientRow, type CommissionRow, type Plan, type ResellerSummary, startOfWeek, useClients, useCommissions, useReseller } from "./api";
import { CopyField } from "./CopyField";
import { day, money, pagerLabels } from "./format";
import { carriedQuery } from "./PaymentPage";
import { PaymentResult } from "./PaymentResult";
import { PlanCards } from "./PlanCards";
import "../../i18n/billing";
import "./billing.css";

type Approved = Exclude<ResellerSummary, { status: "none" }> & { status: "approved" };

/**
 * /flex/reseller: apply to the reseller program; once approved, the referral code to share, payout
 * setup (Connect Express onboarding), the clients who registered with the code (pay their plan,
 * open their calendar) and the commissions earned on their payments.
 */
export default function ResellerPage() {
  const { t } = useTranslation("billing");
  const { data, error, mutate } = useReseller();
  return (
    <section className="billing-page">
      <h1>{t("common:titles.flexReseller")}</h1>
      {error ? (
        <StatusView kind="error" title={t("reseller.loadError")} onRetry={() => void mutate()} />
      ) : !data ? (
        <StatusView kind="loading" />
      ) : data.reseller.status === "approved" ? (
        <ResellerHome reseller={data.reseller as Approved} reload={() => void mutate()} />
      ) : (
        <Application summary={data.reseller} onApplied={() => void mutate()} />
      )}
    </section>
  );
}

function Application({ summary, onApplied }: { summary: ResellerSummary; onApplied: () => void }) {
  const { t } = useTranslation("billing");
  const [message, setMessage] = useState("");
  const [accepted, setAccepted] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  if (summary.status === "applied") {
    return (
      <p className="callout" role="status">
        {t("reseller.underReview", { date: day(summary.appliedAt) })}
      </p>
    );
  }
  if (summary.status === "revoked") {
    return (
      <p className="alert" role="alert">
        {t("reseller.revoked")}
      </p>
    );
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!accepted) {
      setError("reseller.acceptRequired");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await billingApi.applyAsReseller(message.trim());
      toast.success(t("reseller.applied"));
      onApplied();
    } catch {
      setError("reseller.applyError");
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <p className="lead">{t("reseller.intro")}</p>
      <ul className="reseller-points">
        <li>{t("reseller.point1")}</li>
        <li>{t("reseller.point2")}</li>
        <li>{t("reseller.point3")}</li>
      </ul>
      {summary.status === "rejected" && <p className="notice">{t("reseller.rejected")}</p>}
      <form className="card reseller-apply" onSubmit={(e) => void submit(e)} noValidate>
        <div className="form-field">
          <label htmlFor="reseller-message">{t("reseller.message")}</label>
          <textarea id="reseller-message" rows={3} maxLength={500} value={message} onChange={(e) => setMessage(e.target.value)} />
        </div>
        <label className="check">
          <input type="checkbox" checked={accepted} onChange={(e) => setAccepted(e.target.checked)} aria-invalid={error && !accepted ? true : undefined} />
          {t("reseller.acceptTerms")}
        </label>
        {error && (
          <p className="alert" role="alert">
            {t(error)}
          </p>
        )}
        <div className="actions">
          <button type="submit" className="button" disabled={busy}>
            {t("reseller.apply")}
          </button>
        </div>
      </form>
    </>
  );
}

function ResellerHome({ reseller, reload }: { reseller: Approved; reload: () => void }) {
  const { t, i18n } = useTranslation("billing");
  const [params] = useSearchParams();
  const onboarding = params.get("onboarding");
  const paymentId = Number(params.get("payment")) || null;
  const refreshed = useRef(false);
  const [setupError, setSetupError] = useState<string | null>(null);
  const [settingUp, setSettingUp] = useState(false);

  // Back from the payout setup: read the account's state now rather than wait for the provider's event.
  useEffect(() => {
    if (!onboarding || refreshed.current) return;
    refreshed.current = true;
    billingApi.refreshOnboarding().then(
      () => reload(),
      () => setSetupError("reseller.payouts.refreshError"),
    );
  }, [onboarding, reload]);

  const setUpPayouts = async () => {
    setSettingUp(true);
    setSetupError(null);
    try {
      const { url } = await billingApi.startOnboarding();
      window.location.assign(url);
    } catch {
      setSetupError("reseller.payouts.startError");
      setSettingUp(false);
    }
  };

  const shareLink = `${window.location.origin}/register?ref=${encodeURIComponent(reseller.referralCode ?? "")}`;
  return (
    <>
      {paymentId !== null && <PaymentResult key={paymentId} paymentId={paymentId} canceled={params.get("canceled") === "1"} />}
      <div className="reseller-grid">
        <section className="card" aria-labelledby="reseller-code-title">
          <h2 id="reseller-code-title">{t("reseller.codeTitle")}</h2>
          <p>{t("reseller.commission", { percent: reseller.commissionPercent })}</p>
          <CopyField label={t("reseller.code")} value={reseller.referralCode ?? ""} />
          <CopyField label={t("reseller.link")} value={shareLink} />
        </section>
        <section className="card" aria-labelledby="reseller-payouts-title">
          <h2 id="reseller-payouts-title">{t("reseller.payouts.title")}</h2>
          <p>
            {reseller.payoutsEnabled ? (
              <Badge tone="success" icon="circle-check">
                {t("reseller.payouts.enabled")}
              </Badge>
            ) : reseller.detailsSubmitted ? (
              <Badge tone="warning">{t("reseller.payouts.pending")}</Badge>
            ) : (
              <Badge tone="neutral">{t("reseller.payouts.notSetUp")}</Badge>
            )}
          </p>
          {onboarding === "refresh" && <p className="notice">{t("reseller.payouts.linkExpired")}</p>}
          {setupError && (
            <p className="alert" role="alert">
              {t(setupError)}
            </p>
          )}
          <dl className="billing-totals">
            <div>
              <dt>{t("reseller.totals.owed")}</dt>
              <dd>{money(reseller.totals.owedCents, i18n.language)}</dd>
            </div>
            <div>
              <dt>{t("reseller.totals.paid")}</dt>
              <dd>{money(reseller.totals.paidCents, i18n.language)}</dd>
            </div>
          </dl>
          <div className="actions">
            <button
              type="button"
              className={reseller.payoutsEnabled ? "button button-secondary" : "button"}
              disabled={settingUp}
              onClick={() => void setUpPayouts()}
            >
              {reseller.payoutsEnabled ? t("reseller.payouts.update") : t("reseller.payouts.setUp")}
            </button>
          </div>
        </section>
      </div>
      <Clients />
      <Commissions />
    </>
  );
}

function Clients() {
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

function Commissions() {
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
