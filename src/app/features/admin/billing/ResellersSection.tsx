import { useId, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { resellerApprovalSchema } from "../../../../shared/billing";
import { z } from "../../../../shared/zod";
import { confirmedAction } from "../../../components/ui/confirmed-action";
import { type Column, DataTable } from "../../../components/ui/DataTable";
import { useConfirm } from "../../../components/ui/Dialog";
import { TextField } from "../../../components/ui/FormField";
import { Pager, usePaging } from "../../../components/ui/Pager";
import { ReadView } from "../../../components/ui/ReadView";
import { BILLING_NS } from "../../../i18n/admin-billing";
import { optionalText, refusalMessage, useSchemaForm } from "../../../lib/forms";
import { useSession } from "../../../lib/session";
import { FormDialog } from "../FormDialog";
import { formatDateTime, formatMoney } from "../format";
import { usePagerWords } from "../ListFilters";
import { useAdminUser } from "../use-admin-user";
import { approveReseller, type CommissionStatus, type ResellerStatus, rejectReseller, revokeReseller, useCommissions, useResellers } from "./api";

type Reseller = NonNullable<ReturnType<typeof useResellers>["data"]>["rows"][number];
type Commission = NonNullable<ReturnType<typeof useCommissions>["data"]>["rows"][number];

/**
 * Reseller applications and programme members: approve (code and commission), reject, revoke.
 * Nobody decides their own application (their account, or theirs in the other app: the same
 * phone); a rate above the default is the owner's to give (docs/payments.md).
 */
export function ResellersSection() {
  const { t, i18n } = useTranslation(BILLING_NS);
  const me = useSession().user;
  const isOwner = useAdminUser().isOwner;
  const own = (r: Reseller) => me?.id === r.userId || me?.phoneNumber === r.phoneNumber;
  const paging = usePaging();
  const [status, setStatus] = useState<ResellerStatus | "">("");
  const resellers = useResellers({ page: paging.page, pageSize: paging.pageSize }, status);
  const [approving, setApproving] = useState<Reseller | null>(null);
  const [confirm, confirmDialog] = useConfirm();
  const pagerWords = usePagerWords();
  const statusId = useId();

  const end = (r: Reseller, how: "reject" | "revoke") =>
    confirmedAction({
      confirm: () =>
        confirm({
          title: t(`resellers.${how}Title`, { name: r.name }),
          message: t(`resellers.${how}Message`),
          confirmLabel: t(`resellers.${how}`),
          tone: "danger",
        }),
      loading: t(`resellers.${how}Busy`, { name: r.name }),
      run: () => (how === "reject" ? rejectReseller(r.userId) : revokeReseller(r.userId)),
      success: () => {
        void resellers.mutate();
        return t(`resellers.${how}Done`, { name: r.name });
      },
      failure: (err) => (err instanceof Error ? err.message : t("common:errors.generic")),
    });

  const columns: Column<Reseller>[] = [
    { key: "name", header: t("resellers.name"), cell: (r) => <Link to={`/admin/users/${r.userId}`}>{r.name}</Link> },
    { key: "status", header: t("resellers.status"), cell: (r) => t(`resellers.statuses.${r.status}`) },
    { key: "code", header: t("resellers.code"), cell: (r) => r.referralCode ?? "" },
    { key: "percent", header: t("resellers.commission"), cell: (r) => `${r.commissionPercent}%` },
    { key: "clients", header: t("resellers.clients"), cell: (r) => r.clients },
    { key: "payouts", header: t("resellers.payouts"), cell: (r) => (r.payoutsEnabled ? t("yes") : t("no")) },
    { key: "applied", header: t("resellers.applied"), className: "nowrap", cell: (r) => formatDateTime(r.appliedAt) },
    {
      key: "actions",
      header: <span className="visually-hidden">{t("resellers.actions")}</span>,
      cell: (r) => (
        <span className="actions">
          {own(r) ? (
            <span className="muted">{t("resellers.own")}</span>
          ) : (
            <>
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
            </>
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
      <ReadView read={resellers} error={t("error")} compact>
        {(data) => (
          <>
            <DataTable
              caption={t("resellers.title")}
              columns={columns}
              rows={data.rows}
              rowKey={(r) => r.userId}
              busy={resellers.isValidating}
              empty={t("resellers.empty")}
            />
            {data.total > paging.pageSize && <Pager {...paging.pager} total={data.total} labels={pagerWords} />}
          </>
        )}
      </ReadView>
      {approving && resellers.data && (
        <ApproveDialog
          reseller={approving}
          maxPercent={isOwner ? null : resellers.data.defaultCommissionPercent}
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

/** The approval form: an optional code (one is made up when left empty) and an optional commission. */
const approveFormSchema = z.object({
  referralCode: optionalText(resellerApprovalSchema.shape.referralCode.unwrap()),
  commissionPercent: optionalText(z.string().transform(Number).pipe(resellerApprovalSchema.shape.commissionPercent.unwrap())),
});

/** `maxPercent`: the default rate, the most an administrator who is not the owner may give (null for the owner). */
function ApproveDialog({ reseller, maxPercent, onClose, onDone }: { reseller: Reseller; maxPercent: number | null; onClose: () => void; onDone: () => void }) {
  const { t } = useTranslation(BILLING_NS);
  const schema = useMemo(
    () =>
      approveFormSchema.refine((v) => maxPercent === null || v.commissionPercent === undefined || v.commissionPercent <= maxPercent, {
        path: ["commissionPercent"],
        message: "admin-billing:resellers.aboveDefault",
      }),
    [maxPercent],
  );
  const form = useSchemaForm(schema, { referralCode: reseller.referralCode ?? "", commissionPercent: String(reseller.commissionPercent || "") });
  const save = form.onSubmit(async (approval) => {
    try {
      await approveReseller(reseller.userId, approval);
      onDone();
    } catch (err) {
      form.setFormError(...refusalMessage(err, "common:errors.generic"));
    }
  });
  return (
    <FormDialog title={t("resellers.approveTitle", { name: reseller.name })} onClose={onClose} onSubmit={save} form={form} submitLabel={t("resellers.approve")}>
      {reseller.message && <blockquote className="lead-message">{reseller.message}</blockquote>}
      <TextField {...form.field("referralCode")} label={t("resellers.code")} hint={t("resellers.codeHint")} maxLength={20} />
      <TextField
        {...form.field("commissionPercent")}
        label={t("resellers.commission")}
        hint={maxPercent === null ? undefined : t("resellers.commissionHint", { percent: maxPercent })}
        type="number"
        inputMode="decimal"
        min={0}
        max={maxPercent ?? 100}
        step={0.5}
      />
    </FormDialog>
  );
}

function CommissionsTable({ money }: { money: (cents: number) => string }) {
  const { t } = useTranslation(BILLING_NS);
  const paging = usePaging();
  const [status, setStatus] = useState<CommissionStatus | "">("");
  const commissions = useCommissions({ page: paging.page, pageSize: paging.pageSize }, status);
  const pagerWords = usePagerWords();
  const statusId = useId();
  const columns: Column<Commission>[] = [
    { key: "at", header: t("commissions.date"), className: "nowrap", cell: (c) => formatDateTime(c.createdAt) },
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
      <ReadView read={commissions} error={t("error")} compact>
        {(data) => (
          <>
            <dl className="facts billing-totals">
              <div>
                <dt>{t("commissions.total")}</dt>
                <dd>{money(data.totals.amountCents)}</dd>
              </div>
              <div>
                <dt>{t("commissions.paidOut")}</dt>
                <dd>{money(data.totals.transferredCents)}</dd>
              </div>
              <div>
                <dt>{t("commissions.reversed")}</dt>
                <dd>{money(data.totals.reversedCents)}</dd>
              </div>
            </dl>
            <DataTable
              caption={t("commissions.title")}
              columns={columns}
              rows={data.rows}
              rowKey={(c) => c.id}
              busy={commissions.isValidating}
              empty={t("commissions.empty")}
            />
            {data.total > paging.pageSize && <Pager {...paging.pager} total={data.total} labels={pagerWords} />}
          </>
        )}
      </ReadView>
    </>
  );
}
