import { useId, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { BoolMark, type Column } from "../../components/ui/DataTable";
import { TriStateSelect, type TriState } from "../../components/ui/TriStateSelect";
import { newIdempotencyKey, useTemplates } from "../../lib/admin-api";
import { useAdminUser } from "../../lib/admin-user";
import type { Query } from "../../lib/api-client";
import { invitationAudienceSchema, type InvitationRow } from "../../../shared/audience";
import { formatDDMMYY } from "../../../shared/dates";
import { formatUsPhone } from "../../../shared/phone";
import { fitsOneSegment } from "../../../shared/sms";
import { DateField } from "./DateField";
import { useTriLabels } from "../../lib/admin-labels";
import { findTemplate, MessageFields, MessagePreview, type MessageErrors, type MessageValue } from "../../lib/admin-message";
import { ReviewStep } from "./ReviewStep";
import { confirmAndSend } from "./send";

export type InvitationForm = MessageValue & {
  startDate: string;
  endDate: string;
  registered: TriState;
  accountConnected: TriState;
  setupComplete: TriState;
};

const initialForm: InvitationForm = {
  startDate: "",
  endDate: "",
  registered: "all",
  accountConnected: "all",
  setupComplete: "all",
  channel: "sms",
  message: "",
  templateId: "",
};

type FieldErrors = Partial<Record<"startDate" | "endDate", string>> & MessageErrors;

export function invitationAudience(form: InvitationForm, tzOffsetMinutes = new Date().getTimezoneOffset()): Query {
  const tri = (v: TriState) => (v === "all" ? undefined : v);
  return {
    startDate: form.startDate || undefined,
    endDate: form.endDate || undefined,
    registered: tri(form.registered),
    accountConnected: tri(form.accountConnected),
    setupComplete: tri(form.setupComplete),
    tzOffsetMinutes,
  };
}

/** Panel 2, "Send SMS to unpaid invitations": the SMS is always limited to one segment. */
export function InvitationsPanel() {
  const { t } = useTranslation("admin");
  const ids = useId();
  const navigate = useNavigate();
  const { billingDetails } = useAdminUser();
  const triLabels = useTriLabels();
  const [form, setForm] = useState<InvitationForm>(initialForm);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [review, setReview] = useState<{ audience: Query; key: string; form: InvitationForm } | null>(null);
  const templates = useTemplates(billingDetails && form.channel === "whatsapp");

  const update = (patch: Partial<InvitationForm>) => setForm((f) => ({ ...f, ...patch }));

  function startReview(e: FormEvent) {
    e.preventDefault();
    const audience = invitationAudience(form);
    const next: FieldErrors = {};
    const parsed = invitationAudienceSchema.safeParse(audience);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = issue.path[0];
        if (field === "startDate" || field === "endDate") next[field] ??= t("errors.dateOrder");
      }
    }
    if (form.channel === "sms") {
      if (!form.message.trim()) next.message = t("errors.messageRequired");
      else if (!fitsOneSegment(form.message)) next.message = t("errors.oneSegment");
    } else if (!findTemplate(templates.data?.Items, form.templateId)) {
      next.template = t("errors.templateRequired");
    }
    setErrors(next);
    if (Object.keys(next).length > 0) return;
    setReview({ audience, key: newIdempotencyKey(), form });
  }

  async function send(excludedPhones: string[], recipients: number) {
    if (!review) return;
    const f = review.form;
    const template = findTemplate(templates.data?.Items, f.templateId);
    const created = await confirmAndSend(
      {
        idempotencyKey: review.key,
        source: "invitations",
        channel: f.channel,
        ...(f.channel === "sms" ? { message: f.message } : { template: { name: template!.name, language: template!.language } }),
        audience: review.audience,
        excludedPhones,
      },
      recipients,
      t,
      navigate,
    );
    if (created) {
      setForm(initialForm);
      setErrors({});
      setReview(null);
    }
  }

  if (review) {
    const f = review.form;
    const columns: Column<InvitationRow>[] = [
      { key: "name", header: t("columns.name"), cell: (r) => (r.unregistered ? <em className="muted">{t("invitations.unregistered")}</em> : r.name) },
      { key: "phone", header: t("columns.phone"), className: "nowrap", cell: (r) => formatUsPhone(r.phone) || r.phone },
      { key: "invited", header: t("columns.invitationDate"), className: "nowrap", cell: (r) => formatDDMMYY(r.invitedAt) ?? "" },
      { key: "registered", header: t("columns.registered"), cell: (r) => <BoolMark value={!r.unregistered} yes={t("tri.yes")} no={t("tri.no")} /> },
      { key: "connected", header: t("columns.accountConnected"), cell: (r) => <BoolMark value={r.accountConnected} yes={t("tri.yes")} no={t("tri.no")} /> },
      { key: "setup", header: t("columns.filtersComplete"), cell: (r) => <BoolMark value={r.setupComplete} yes={t("tri.yes")} no={t("tri.no")} /> },
    ];
    return (
      <section className="card panel panel-reviewing" aria-labelledby={`${ids}-title`}>
        <h2 id={`${ids}-title`}>{t("invitations.title")}</h2>
        <ReviewStep<InvitationRow>
          path="/api/admin/invitation-audience"
          filters={review.audience}
          columns={columns}
          summary={(n) => t("invitations.summary", { n })}
          preview={<MessagePreview channel={f.channel} message={f.message} template={findTemplate(templates.data?.Items, f.templateId)} />}
          loadError={t("errors.fetchData")}
          nothingToReview={t("review.nothingInvitations")}
          onCancel={() => setReview(null)}
          onSend={send}
        />
      </section>
    );
  }

  return (
    <section className="card panel" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>{t("invitations.title")}</h2>
      <form onSubmit={startReview} noValidate>
        <div className="date-grid">
          <DateField id={`${ids}-s`} label={t("invitations.start")} value={form.startDate} onChange={(startDate) => update({ startDate })} error={errors.startDate} />
          <DateField id={`${ids}-e`} label={t("invitations.end")} value={form.endDate} onChange={(endDate) => update({ endDate })} error={errors.endDate} />
        </div>
        <div className="tri-grid">
          <TriStateSelect label={t("filters.registered")} value={form.registered} onChange={(registered) => update({ registered })} labels={triLabels} />
          <TriStateSelect label={t("filters.proxyInstalled")} value={form.accountConnected} onChange={(accountConnected) => update({ accountConnected })} labels={triLabels} />
          <TriStateSelect label={t("filters.setupComplete")} value={form.setupComplete} onChange={(setupComplete) => update({ setupComplete })} labels={triLabels} />
        </div>
        <MessageFields value={form} onChange={update} limit billingDetails={billingDetails} errors={errors} />
        <div className="actions">
          <button type="submit" className="button">
            {t("actions.review")}
          </button>
        </div>
      </form>
    </section>
  );
}
