import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import type { UserDetail } from "../../../../shared/admin-users";
import { formatDDMMYY } from "../../../../shared/dates";
import { type Column, DataTable } from "../../../components/ui/DataTable";
import { Pager, usePaging } from "../../../components/ui/Pager";
import { USERS_NS } from "../../../i18n/admin-users";
import { formatDateTime } from "../format";
import { adjustServiceTime, useServiceTime } from "./api";
import { usePagerLabels } from "./labels";

type Entry = NonNullable<ReturnType<typeof useServiceTime>["data"]>["rows"][number];

/**
 * The service-time ledger (docs/payments.md: every change to a driver's expiration, with who and
 * why), and a manual extension or reduction in days with a required reason. Billing admins only.
 */
export function ServiceTimeSection({ user, onChanged }: { user: UserDetail; onChanged: () => void }) {
  const { t, i18n } = useTranslation(USERS_NS);
  const ids = { days: useId(), reason: useId() };
  const paging = usePaging();
  const ledger = useServiceTime(String(user.id), { page: paging.page, pageSize: paging.pageSize }, true);
  const labels = usePagerLabels();
  const [days, setDays] = useState("");
  const [reason, setReason] = useState("");
  const [state, setState] = useState<{ busy: boolean; error: string | null; done: string | null }>({ busy: false, error: null, done: null });
  const n = Number(days);
  const daysProblem = days === "" || !Number.isInteger(n) || n === 0 || Math.abs(n) > 365 ? t("serviceTime.daysHint") : null;
  const reasonProblem = reason.trim().length < 3 ? t("reason.required") : null;
  const [tried, setTried] = useState(false);

  const columns: Column<Entry>[] = [
    { key: "at", header: t("serviceTime.at"), className: "nowrap", cell: (e) => formatDateTime(e.createdAt, i18n.language) },
    { key: "kind", header: t("serviceTime.kind"), cell: (e) => t(`serviceTime.kinds.${e.kind}`) },
    { key: "days", header: t("serviceTime.days"), className: "nowrap", cell: (e) => (e.days > 0 ? `+${e.days}` : String(e.days)) },
    {
      key: "expiration",
      header: t("serviceTime.expiration"),
      className: "nowrap",
      cell: (e) => `${formatDDMMYY(e.expirationBefore) ?? t("none")} → ${formatDDMMYY(e.expirationAfter) ?? t("none")}`,
    },
    { key: "who", header: t("serviceTime.who"), cell: (e) => e.actor?.name ?? t("audit.system") },
    { key: "reason", header: t("serviceTime.reason"), cell: (e) => e.reason ?? (e.paymentId ? `#${e.paymentId}` : "") },
  ];

  return (
    <section className="user-section" aria-labelledby="service-time-heading">
      <h2 id="service-time-heading">{t("serviceTime.title")}</h2>
      <p>{t("serviceTime.current", { date: formatDDMMYY(user.expirationAt) ?? t("none") })}</p>
      <form
        className="service-time-form"
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          setTried(true);
          if (daysProblem || reasonProblem) return;
          setState({ busy: true, error: null, done: null });
          try {
            await adjustServiceTime(user.id, { days: n, reason: reason.trim() });
            setDays("");
            setReason("");
            setTried(false);
            setState({ busy: false, error: null, done: t(n > 0 ? "serviceTime.extended" : "serviceTime.reduced", { count: Math.abs(n) }) });
            void ledger.mutate();
            onChanged();
          } catch (err) {
            setState({ busy: false, error: err instanceof Error ? err.message : t("error"), done: null });
          }
        }}
      >
        <div className="filters-grid">
          <div className="field">
            <label htmlFor={ids.days}>{t("serviceTime.daysLabel")}</label>
            <input
              id={ids.days}
              type="number"
              inputMode="numeric"
              step={1}
              min={-365}
              max={365}
              value={days}
              aria-invalid={tried && daysProblem ? true : undefined}
              aria-describedby={`${ids.days}-hint`}
              onChange={(e) => setDays(e.target.value)}
            />
            <p id={`${ids.days}-hint`} className={tried && daysProblem ? "field-error" : "form-hint"}>
              {t("serviceTime.daysHint")}
            </p>
          </div>
          <div className="field">
            <label htmlFor={ids.reason}>{t("serviceTime.reasonLabel")}</label>
            <input
              id={ids.reason}
              value={reason}
              maxLength={300}
              aria-invalid={tried && reasonProblem ? true : undefined}
              aria-describedby={tried && reasonProblem ? `${ids.reason}-error` : undefined}
              onChange={(e) => setReason(e.target.value)}
            />
            {tried && reasonProblem && (
              <p id={`${ids.reason}-error`} className="field-error">
                {reasonProblem}
              </p>
            )}
          </div>
        </div>
        <div className="actions">
          <button type="submit" className="button" disabled={state.busy}>
            {t("serviceTime.apply")}
          </button>
          <span role="status" aria-live="polite" className={state.error ? "field-error" : "muted"}>
            {state.error ?? state.done}
          </span>
        </div>
      </form>
      {ledger.error && !ledger.data ? (
        <p className="alert" role="alert">
          {t("error")}
        </p>
      ) : (
        <>
          <DataTable
            caption={t("serviceTime.title")}
            columns={columns}
            rows={ledger.data?.rows ?? []}
            rowKey={(e) => e.id}
            busy={ledger.isLoading}
            empty={t("serviceTime.none")}
          />
          {(ledger.data?.total ?? 0) > paging.pageSize && <Pager {...paging.pager} total={ledger.data!.total} labels={labels} />}
        </>
      )}
    </section>
  );
}
