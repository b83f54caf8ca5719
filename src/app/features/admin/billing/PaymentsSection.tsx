import { lazy, Suspense, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { dayMinus } from "../../../../shared/admin-dashboard";
import { calendarDay, dayEnd, dayStart, localTimeZone } from "../../../../shared/audience";
import { formatUsPhone } from "../../../../shared/phone";
import { z } from "../../../../shared/zod";
import { type Column, DataTable } from "../../../components/ui/DataTable";
import { TextField } from "../../../components/ui/FormField";
import { Pager } from "../../../components/ui/Pager";
import { ReadView } from "../../../components/ui/ReadView";
import { StatusView } from "../../../components/ui/StatusView";
import { BILLING_NS } from "../../../i18n/admin-billing";
import { asQuery } from "../../../lib/api-client";
import { refusalMessage, useSchemaForm } from "../../../lib/forms";
import { FormDialog } from "../FormDialog";
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
    { key: "at", header: t("payments.date"), className: "nowrap", cell: (p) => formatDateTime(p.settledAt ?? p.createdAt) },
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
      <ReadView read={payments} error={t("error")}>
        {(data) => (
          <>
            <dl className="facts billing-totals">
              <div>
                <dt>{t("payments.count")}</dt>
                <dd>{data.total}</dd>
              </div>
              <div>
                <dt>{t("payments.gross")}</dt>
                <dd>{money(data.totals.grossCents)}</dd>
              </div>
              <div>
                <dt>{t("payments.refundedTotal")}</dt>
                <dd>{money(data.totals.refundedCents)}</dd>
              </div>
              <div>
                <dt>{t("payments.net")}</dt>
                <dd>{money(data.totals.netCents)}</dd>
              </div>
              <div>
                <dt>{t("payments.daysSold")}</dt>
                <dd>{data.totals.daysSold}</dd>
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
              rows={data.rows}
              rowKey={(p) => p.id}
              busy={payments.isValidating}
              empty={t("payments.empty")}
            />
            <Pager {...list.pager} total={data.total} labels={pagerWords} />
          </>
        )}
      </ReadView>
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

/** Dollars as typed ("12", "12.5", "12.50") to whole cents; anything else is not an amount. */
const dollarsSchema = z
  .string()
  .trim()
  .regex(/^\d+(\.\d{1,2})?$/)
  .transform((dollars) => Math.round(Number(dollars) * 100));

/** At most what is left to refund; all of it is sent as no amount (the server refunds the rest). */
const refundFormSchema = (leftCents: number) =>
  z.object({ amountCents: dollarsSchema.pipe(z.number().int().min(1).max(leftCents)) }).transform(({ amountCents }) => ({
    amountCents: amountCents === leftCents ? undefined : amountCents,
  }));

function RefundDialog({ payment, onClose, onDone }: { payment: Payment; onClose: () => void; onDone: () => void }) {
  const { t, i18n } = useTranslation(BILLING_NS);
  const left = payment.amountCents - payment.refundedCents;
  const form = useSchemaForm(
    useMemo(() => refundFormSchema(left), [left]),
    { amountCents: (left / 100).toFixed(2) },
  );
  const typed = dollarsSchema.safeParse(form.watch("amountCents"));
  const cents = typed.success ? typed.data : 0;
  const { error, ...amount } = form.field("amountCents");
  const save = form.onSubmit(async ({ amountCents }) => {
    try {
      await refund(payment.id, amountCents);
      onDone();
    } catch (err) {
      form.setFormError(...refusalMessage(err, "common:errors.generic"));
    }
  });
  return (
    <FormDialog
      title={t("refundDialog.title", { name: payment.userName })}
      onClose={onClose}
      onSubmit={save}
      form={form}
      danger
      submitLabel={
        cents === left
          ? t("refundDialog.full", { amount: formatMoney(left, i18n.language) })
          : t("refundDialog.partial", { amount: formatMoney(cents, i18n.language) })
      }
    >
      <p>{t("refundDialog.explain", { paid: formatMoney(payment.amountCents, i18n.language), left: formatMoney(left, i18n.language), days: payment.days })}</p>
      <TextField
        {...amount}
        label={t("refundDialog.amount")}
        type="number"
        inputMode="decimal"
        min={0.01}
        step={0.01}
        max={left / 100}
        error={error && t("refundDialog.amountHint", { max: formatMoney(left, i18n.language) })}
      />
    </FormDialog>
  );
}
