import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { type Column, DataTable } from "../../../components/ui/DataTable";
import { Dialog, useConfirm } from "../../../components/ui/Dialog";
import { Pager, usePaging } from "../../../components/ui/Pager";
import { StatusView } from "../../../components/ui/StatusView";
import { BILLING_NS } from "../../../i18n/admin-billing";
import { formatDateTime, formatMoney } from "../format";
import { usePagerWords } from "../ListFilters";
import { approveReseller, type CommissionStatus, type ResellerStatus, rejectReseller, revokeReseller, useCommissions, useResellers } from "./api";

type Reseller = NonNullable<ReturnType<typeof useResellers>["data"]>["rows"][number];
type Commission = NonNullable<ReturnType<typeof useCommissions>["data"]>["rows"][number];

/** Reseller applications and programme members: approve (code and commission), reject, revoke. */
export function ResellersSection() {
  const { t, i18n } = useTranslation(BILLING_NS);
  const paging = usePaging();
  const [status, setStatus] = useState<ResellerStatus | "">("");
  const resellers = useResellers({ page: paging.page, pageSize: paging.pageSize }, status);
  const [approving, setApproving] = useState<Reseller | null>(null);
  const [confirm, confirmDialog] = useConfirm();
  const [error, setError] = useState<string | null>(null);
  const pagerWords = usePagerWords();
  const statusId = useId();

  const end = async (r: Reseller, how: "reject" | "revoke") => {
    const ok = await confirm({
      title: t(`resellers.${how}Title`, { name: r.name }),
      message: t(`resellers.${how}Message`),
      confirmLabel: t(`resellers.${how}`),
      tone: "danger",
    });
    if (!ok) return;
    try {
      await (how === "reject" ? rejectReseller(r.userId) : revokeReseller(r.userId));
      setError(null);
      await resellers.mutate();
    } catch (err) {
      setError(err instanceof Error ? err.message : t("error"));
    }
  };

  const columns: Column<Reseller>[] = [
    { key: "name", header: t("resellers.name"), cell: (r) => <Link to={`/admin/users/${r.userId}`}>{r.name}</Link> },
    { key: "status", header: t("resellers.status"), cell: (r) => t(`resellers.statuses.${r.status}`) },
    { key: "code", header: t("resellers.code"), cell: (r) => r.referralCode ?? "" },
    { key: "percent", header: t("resellers.commission"), cell: (r) => `${r.commissionPercent}%` },
    { key: "clients", header: t("resellers.clients"), cell: (r) => r.clients },
    { key: "payouts", header: t("resellers.payouts"), cell: (r) => (r.payoutsEnabled ? t("yes") : t("no")) },
    { key: "applied", header: t("resellers.applied"), className: "nowrap", cell: (r) => formatDateTime(r.appliedAt, i18n.language) },
    {
      key: "actions",
      header: <span className="visually-hidden">{t("resellers.actions")}</span>,
      cell: (r) => (
        <span className="actions">
          {r.status === "applied" && (
            <>
              <button type="button" className="button" onClick={() => setApproving(r)}>
                {t("resellers.approve")}
              </button>
              <button type="button" className="button button-secondary" onClick={() => void end(r, "reject")}>
                {t("resellers.reject")}
              </button>
            </>
          )}
          {r.status === "approved" && (
            <button type="button" className="button button-secondary" onClick={() => void end(r, "revoke")}>
              {t("resellers.revoke")}
            </button>
          )}
        </span>
      ),
    },
  ];

  return (
    <section className="user-section" aria-labelledby="resellers-heading">
      <h2 id="resellers-heading">{t("resellers.title")}</h2>
      <div className="field">
        <label htmlFor={statusId}>{t("resellers.status")}</label>
        <select id={statusId} value={status} onChange={(e) => setStatus(e.target.value as ResellerStatus | "")}>
          <option value="">{t("all")}</option>
          {(["applied", "approved", "rejected", "revoked"] as const).map((s) => (
            <option key={s} value={s}>
              {t(`resellers.statuses.${s}`)}
            </option>
          ))}
        </select>
      </div>
      {error && (
        <p className="alert" role="alert">
          {error}
        </p>
      )}
      {resellers.error && !resellers.data ? (
        <StatusView kind="error" message={t("error")} onRetry={() => void resellers.mutate()} />
      ) : !resellers.data ? (
        <StatusView kind="loading" compact />
      ) : (
        <>
          <DataTable
            caption={t("resellers.title")}
            columns={columns}
            rows={resellers.data.rows}
            rowKey={(r) => r.userId}
            busy={resellers.isValidating}
            empty={t("resellers.empty")}
          />
          {resellers.data.total > paging.pageSize && <Pager {...paging.pager} total={resellers.data.total} labels={pagerWords} />}
        </>
      )}
      {approving && (
        <ApproveDialog
          reseller={approving}
          onClose={() => setApproving(null)}
          onDone={() => {
            setApproving(null);
            void resellers.mutate();
          }}
        />
      )}
      {confirmDialog}
      <CommissionsTable money={(cents) => formatMoney(cents, i18n.language)} />
    </section>
  );
}

function ApproveDialog({ reseller, onClose, onDone }: { reseller: Reseller; onClose: () => void; onDone: () => void }) {
  const { t } = useTranslation(BILLING_NS);
  const ids = { code: useId(), percent: useId() };
  const [code, setCode] = useState(reseller.referralCode ?? "");
  const [percent, setPercent] = useState(String(reseller.commissionPercent || ""));
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  return (
    <Dialog open title={t("resellers.approveTitle", { name: reseller.name })} onClose={onClose}>
      <form
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          setState({ busy: true, error: null });
          try {
            await approveReseller(reseller.userId, { referralCode: code.trim() || undefined, commissionPercent: percent === "" ? undefined : Number(percent) });
            onDone();
          } catch (err) {
            setState({ busy: false, error: err instanceof Error ? err.message : t("error") });
          }
        }}
      >
        {reseller.message && <blockquote className="lead-message">{reseller.message}</blockquote>}
        <div className="field">
          <label htmlFor={ids.code}>{t("resellers.code")}</label>
          <input id={ids.code} value={code} maxLength={20} onChange={(e) => setCode(e.target.value)} aria-describedby={`${ids.code}-hint`} />
          <p id={`${ids.code}-hint`} className="form-hint">
            {t("resellers.codeHint")}
          </p>
        </div>
        <div className="field">
          <label htmlFor={ids.percent}>{t("resellers.commission")}</label>
          <input id={ids.percent} type="number" min={0} max={100} step={0.5} value={percent} onChange={(e) => setPercent(e.target.value)} />
        </div>
        {state.error && (
          <p className="field-error" role="alert">
            {state.error}
          </p>
        )}
        <div className="actions">
          <button type="button" className="button button-secondary" onClick={onClose} data-autofocus>
            {t("cancel")}
          </button>
          <button type="submit" className="button" disabled={state.busy}>
            {t("resellers.approve")}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function CommissionsTable({ money }: { money: (cents: number) => string }) {
  const { t, i18n } = useTranslation(BILLING_NS);
  const paging = usePaging();
  const [status, setStatus] = useState<CommissionStatus | "">("");
  const commissions = useCommissions({ page: paging.page, pageSize: paging.pageSize }, status);
  const pagerWords = usePagerWords();
  const statusId = useId();
  const columns: Column<Commission>[] = [
    { key: "at", header: t("commissions.date"), className: "nowrap", cell: (c) => formatDateTime(c.createdAt, i18n.language) },
    { key: "reseller", header: t("commissions.reseller"), cell: (c) => <Link to={`/admin/users/${c.resellerId}`}>#{c.resellerId}</Link> },
    { key: "client", header: t("commissions.client"), cell: (c) => <Link to={`/admin/users/${c.clientId}`}>{c.clientName}</Link> },
    { key: "payment", header: t("commissions.payment"), className: "nowrap", cell: (c) => money(c.paymentCents) },
    { key: "amount", header: t("commissions.amount"), className: "nowrap", cell: (c) => money(c.amountCents) },
    { key: "status", header: t("commissions.status"), cell: (c) => t(`commissions.statuses.${c.status}`) },
    { key: "transfer", header: t("commissions.transfer"), cell: (c) => c.transferId ?? "" },
  ];
  return (
    <>
      <h3>{t("commissions.title")}</h3>
      <div className="field">
        <label htmlFor={statusId}>{t("commissions.status")}</label>
        <select id={statusId} value={status} onChange={(e) => setStatus(e.target.value as CommissionStatus | "")}>
          <option value="">{t("all")}</option>
          {(["pending", "paid", "reversed"] as const).map((s) => (
            <option key={s} value={s}>
              {t(`commissions.statuses.${s}`)}
            </option>
          ))}
        </select>
      </div>
      {commissions.error && !commissions.data ? (
        <StatusView kind="error" message={t("error")} onRetry={() => void commissions.mutate()} />
      ) : !commissions.data ? (
        <StatusView kind="loading" compact />
      ) : (
        <>
          <dl className="facts billing-totals">
            <div>
              <dt>{t("commissions.total")}</dt>
              <dd>{money(commissions.data.totals.amountCents)}</dd>
            </div>
            <div>
              <dt>{t("commissions.paidOut")}</dt>
              <dd>{money(commissions.data.totals.transferredCents)}</dd>
            </div>
            <div>
              <dt>{t("commissions.reversed")}</dt>
              <dd>{money(commissions.data.totals.reversedCents)}</dd>
            </div>
          </dl>
          <DataTable
            caption={t("commissions.title")}
            columns={columns}
            rows={commissions.data.rows}
            rowKey={(c) => c.id}
            busy={commissions.isValidating}
            empty={t("commissions.empty")}
          />
          {commissions.data.total > paging.pageSize && <Pager {...paging.pager} total={commissions.data.total} labels={pagerWords} />}
        </>
      )}
    </>
  );
}
