import { lazy, Suspense, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { dayMinus } from "../../../../shared/admin-dashboard";
import { calendarDay, dayEnd, dayStart, localTimeZone } from "../../../../shared/audience";
import { formatUsPhone } from "../../../../shared/phone";
import { type Column, DataTable } from "../../../components/ui/DataTable";
import { Dialog } from "../../../components/ui/Dialog";
import { Pager } from "../../../components/ui/Pager";
import { StatusView } from "../../../components/ui/StatusView";
import { BILLING_NS } from "../../../i18n/admin-billing";
import { asQuery } from "../../../lib/api-client";
import { formatDateTime, formatMoney, saveText } from "../format";
import { DateFilter, FilterBar, SelectFilter, TextFilter, usePagerWords } from "../ListFilters";
import { useListParams } from "../use-list-params";
import { exportPayments, refund, usePayments, useRevenue } from "./api";

// The revenue chart brings uPlot: its own chunk, after the table.
const RevenueChart = lazy(() => import("./RevenueChart"));

const STATUSES = ["successful", "refunded", "failed", "processing"] as const;
type Payment = NonNullable<ReturnType<typeof usePayments>["data"]>["rows"][number];

/** Payments with filters and totals, refunds (full or partial, confirmed), CSV and revenue per day. */
export function PaymentsSection() {
  const { t, i18n } = useTranslation(BILLING_NS);
  const list = useListParams();
  const zone = localTimeZone() ?? "UTC";
  const today = calendarDay(Date.now(), zone);
  const from = list.text("from") || dayMinus(today, 29);
  const to = list.text("to") || today;
  const status = list.pick("status", ["all", ...STATUSES] as const, "all");
  const app = list.pick("app", ["all", "flex", "spark"] as const, "all");
  const valid = from <= to;
  const filters = {
    status: status === "all" ? undefined : status,
    app: app === "all" ? undefined : app,
    from: valid ? dayStart(from, zone) : undefined,
    to: valid ? dayEnd(to, zone) : undefined,
    q: list.text("search") || undefined,
  };
  const payments = usePayments(asQuery({ ...filters, ...list.paging }));
  const revenue = useRevenue(valid ? { from, to, timeZone: zone } : null);
  const pagerWords = usePagerWords();
  const [refunding, setRefunding] = useState<Payment | null>(null);
  const [exporting, setExporting] = useState<"idle" | "busy" | "failed">("idle");
  const money = (cents: number) => formatMoney(cents, i18n.language);

  const columns: Column<Payment>[] = [
    { key: "at", header: t("payments.date"), className: "nowrap", cell: (p) => formatDateTime(p.settledAt ?? p.createdAt, i18n.language) },
    { key: "who", header: t("payments.driver"), cell: (p) => <Link to={`/admin/users/${p.userId}`}>{p.userName}</Link> },
    { key: "phone", header: t("payments.phone"), className: "nowrap", cell: (p) => formatUsPhone(p.phoneNumber) || p.phoneNumber },
    { key: "days", header: t("payments.days"), cell: (p) => p.days },
    { key: "amount", header: t("payments.amount"), className: "nowrap", cell: (p) => money(p.amountCents) },
    { key: "refunded", header: t("payments.refunded"), className: "nowrap", cell: (p) => (p.refundedCents > 0 ? money(p.refundedCents) : "") },
    { key: "status", header: t("payments.status"), cell: (p) => `${t(`payments.statuses.${p.status}`)}${p.failureCode ? ` (${p.failureCode})` : ""}` },
    {
      key: "refund",
      header: <span className="visually-hidden">{t("payments.refund")}</span>,
      cell: (p) =>
        (p.status === "successful" || p.status === "refunded") && p.refundedCents < p.amountCents ? (
          <button type="button" className="button button-secondary" onClick={() => setRefunding(p)} aria-label={t("payments.refundOne", { id: p.id })}>
            {t("payments.refund")}
          </button>
        ) : null,
    },
  ];

  return (
    <section className="user-section" aria-labelledby="payments-heading">
      <h2 id="payments-heading">{t("payments.title")}</h2>
      <FilterBar title={t("filters")} onReset={list.reset} resetLabel={t("reset")}>
        <TextFilter label={t("search")} hint={t("payments.searchHint")} value={list.search} onChange={list.setSearch} />
        <SelectFilter
          label={t("payments.status")}
          value={status}
          options={[{ value: "all" as const, label: t("all") }, ...STATUSES.map((s) => ({ value: s, label: t(`payments.statuses.${s}`) }))]}
          onChange={(value) => list.update({ status: value })}
        />
        <SelectFilter
          label={t("app")}
          value={app}
          options={[
            { value: "all" as const, label: t("all") },
            { value: "flex" as const, label: "Flex" },
            { value: "spark" as const, label: "Spark" },
          ]}
          onChange={(value) => list.update({ app: value })}
        />
        <DateFilter label={t("from")} value={from} lang={i18n.language} onChange={(value) => list.update({ from: value })} />
        <DateFilter label={t("to")} value={to} lang={i18n.language} onChange={(value) => list.update({ to: value })} />
      </FilterBar>
      {!valid && (
        <p className="field-error" role="alert">
          {t("badRange")}
        </p>
      )}
      {payments.error && !payments.data ? (
        <StatusView kind="error" message={t("error")} onRetry={() => void payments.mutate()} />
      ) : !payments.data ? (
        <StatusView kind="loading" />
      ) : (
        <>
          <dl className="facts billing-totals">
            <div>
              <dt>{t("payments.count")}</dt>
              <dd>{payments.data.total}</dd>
            </div>
            <div>
              <dt>{t("payments.gross")}</dt>
              <dd>{money(payments.data.totals.grossCents)}</dd>
            </div>
            <div>
              <dt>{t("payments.refundedTotal")}</dt>
              <dd>{money(payments.data.totals.refundedCents)}</dd>
            </div>
            <div>
              <dt>{t("payments.net")}</dt>
              <dd>{money(payments.data.totals.netCents)}</dd>
            </div>
            <div>
              <dt>{t("payments.daysSold")}</dt>
              <dd>{payments.data.totals.daysSold}</dd>
            </div>
          </dl>
          <div className="results-bar">
            <span />
            <button
              type="button"
              className="button button-secondary"
              disabled={exporting === "busy"}
              onClick={async () => {
                setExporting("busy");
                try {
                  saveText(await exportPayments(asQuery(filters)), "payments.csv");
                  setExporting("idle");
                } catch (err) {
                  console.error("The payments export failed", err);
                  setExporting("failed");
                }
              }}
            >
              {exporting === "busy" ? t("exportBusy") : t("export")}
            </button>
          </div>
          {exporting === "failed" && (
            <p className="alert" role="alert">
              {t("exportFailed")}
            </p>
          )}
          <DataTable
            caption={t("payments.title")}
            columns={columns}
            rows={payments.data.rows}
            rowKey={(p) => p.id}
            busy={payments.isValidating}
            empty={t("payments.empty")}
          />
          <Pager {...list.pager} total={payments.data.total} labels={pagerWords} />
        </>
      )}
      {revenue.data && (
        <Suspense fallback={<StatusView kind="loading" compact />}>
          <RevenueChart days={revenue.data.days} revenueCents={revenue.data.revenueCents} payments={revenue.data.payments} />
        </Suspense>
      )}
      {refunding && (
        <RefundDialog
          payment={refunding}
          onClose={() => setRefunding(null)}
          onDone={() => {
            setRefunding(null);
            void payments.mutate();
          }}
        />
      )}
    </section>
  );
}

function RefundDialog({ payment, onClose, onDone }: { payment: Payment; onClose: () => void; onDone: () => void }) {
  const { t, i18n } = useTranslation(BILLING_NS);
  const id = useId();
  const left = payment.amountCents - payment.refundedCents;
  const [dollars, setDollars] = useState((left / 100).toFixed(2));
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  const cents = Math.round(Number(dollars) * 100);
  const problem = !Number.isFinite(cents) || cents <= 0 || cents > left ? t("refundDialog.amountHint", { max: formatMoney(left, i18n.language) }) : null;
  return (
    <Dialog open title={t("refundDialog.title", { name: payment.userName })} onClose={onClose}>
      <form
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          if (problem) return setState({ busy: false, error: problem });
          setState({ busy: true, error: null });
          try {
            await refund(payment.id, cents === left ? undefined : cents);
            onDone();
          } catch (err) {
            setState({ busy: false, error: err instanceof Error ? err.message : t("error") });
          }
        }}
      >
        <p>
          {t("refundDialog.explain", { paid: formatMoney(payment.amountCents, i18n.language), left: formatMoney(left, i18n.language), days: payment.days })}
        </p>
        <div className="field">
          <label htmlFor={id}>{t("refundDialog.amount")}</label>
          <input
            id={id}
            type="number"
            inputMode="decimal"
            min={0.01}
            step={0.01}
            max={left / 100}
            value={dollars}
            onChange={(e) => setDollars(e.target.value)}
          />
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
          <button type="submit" className="button button-danger" disabled={state.busy}>
            {cents === left
              ? t("refundDialog.full", { amount: formatMoney(left, i18n.language) })
              : t("refundDialog.partial", { amount: formatMoney(Number.isFinite(cents) ? cents : 0, i18n.language) })}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
