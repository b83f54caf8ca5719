import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { z } from "zod";
import type { UserDetail } from "../../../../shared/admin-users";
import { formatDDMMYY } from "../../../../shared/dates";
import { type Column, DataTable } from "../../../components/ui/DataTable";
import { Pager, usePaging } from "../../../components/ui/Pager";
import { USERS_NS } from "../../../i18n/admin-users";
import { fieldErrorText, useSchemaForm } from "../../../lib/forms";
import { formatDateTime } from "../format";
import { adjustServiceTime, useServiceTime } from "./api";
import { usePagerLabels } from "./labels";

/** Whole days, not zero, at most a year either way (the server's rule, docs/payments.md), and why. */
const adjustmentForm = z.object({
  days: z
    .string()
    .trim()
    .regex(/^-?\d{1,3}$/, "admin-users:serviceTime.daysHint")
    .transform(Number)
    .refine((n) => n !== 0 && Math.abs(n) <= 365, "admin-users:serviceTime.daysHint"),
  reason: z.string().trim().min(3, "admin-users:reason.required").max(300, "tooLong"),
});

type Entry = NonNullable<ReturnType<typeof useServiceTime>["data"]>["rows"][number];

/**
 * The service-time ledger (docs/payments.md: every change to a driver's expiration, with who and
 * why), and a manual extension or reduction in days with a required reason. Billing admins only.
 */
export function ServiceTimeSection({ user, onChanged }: { user: UserDetail; onChanged: () => void }) {
  const { t } = useTranslation(USERS_NS);
  const ids = { days: useId(), reason: useId() };
  const paging = usePaging();
  const ledger = useServiceTime(String(user.id), { page: paging.page, pageSize: paging.pageSize }, true);
  const labels = usePagerLabels();
  const form = useSchemaForm(adjustmentForm, { days: "", reason: "" });
  const [result, setResult] = useState<{ error: string | null; done: string | null }>({ error: null, done: null });
  const daysInvalid = Boolean(form.formState.errors.days);
  const reasonError = fieldErrorText(t, form.formState.errors.reason);

  const columns: Column<Entry>[] = [
    { key: "at", header: t("serviceTime.at"), className: "nowrap", cell: (e) => formatDateTime(e.createdAt) },
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
        onSubmit={form.onSubmit(async ({ days, reason }) => {
          setResult({ error: null, done: null });
          try {
            await adjustServiceTime(user.id, { days, reason });
            form.reset();
            setResult({ error: null, done: t(days > 0 ? "serviceTime.extended" : "serviceTime.reduced", { count: Math.abs(days) }) });
            void ledger.mutate();
            onChanged();
          } catch (err) {
            setResult({ error: err instanceof Error ? err.message : t("error"), done: null });
          }
        })}
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
              aria-invalid={daysInvalid ? true : undefined}
              aria-describedby={`${ids.days}-hint`}
              {...form.register("days")}
            />
            <p id={`${ids.days}-hint`} className={daysInvalid ? "field-error" : "form-hint"}>
              {t("serviceTime.daysHint")}
            </p>
          </div>
          <div className="field">
            <label htmlFor={ids.reason}>{t("serviceTime.reasonLabel")}</label>
            <input
              id={ids.reason}
              maxLength={300}
              aria-invalid={reasonError ? true : undefined}
              aria-describedby={reasonError ? `${ids.reason}-error` : undefined}
              {...form.register("reason")}
            />
            {reasonError && (
              <p id={`${ids.reason}-error`} className="field-error">
                {reasonError}
              </p>
            )}
          </div>
        </div>
        <div className="actions">
          <button type="submit" className="button" disabled={form.submitting}>
            {t("serviceTime.apply")}
          </button>
          <span role="status" aria-live="polite" className={result.error ? "field-error" : "muted"}>
            {result.error ?? result.done}
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
