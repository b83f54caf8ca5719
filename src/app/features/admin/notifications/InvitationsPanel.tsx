import { useId } from "react";
import { useTranslation } from "react-i18next";
import { type InvitationRow, invitationAudienceSchema, localTimeZone } from "../../../../shared/audience";
import { formatDDMMYY } from "../../../../shared/dates";
import { formatUsPhone } from "../../../../shared/phone";
import { BoolMark, type Column } from "../../../components/ui/DataTable";
import { type TriState, TriStateSelect } from "../../../components/ui/TriStateSelect";
import { formatDay } from "../format";
import { useTriLabels } from "../labels";
import { emptyMessage, MessageFields, type MessageValue } from "../MessageFields";
import { type InvitationFilters, invitationAudienceList } from "./api";
import { AudienceForm, AudiencePanel, filterLines, useAudienceSend } from "./audience-panel";
import { DateField } from "./DateField";
import { ReviewStep } from "./ReviewStep";

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
  ...emptyMessage(),
};

const DATE_FIELDS = ["startDate", "endDate"] as const;

export function invitationAudience(form: InvitationForm, tzOffsetMinutes = new Date().getTimezoneOffset()): InvitationFilters {
  const tri = (v: TriState) => (v === "all" ? undefined : v);
  return {
    startDate: form.startDate || undefined,
    endDate: form.endDate || undefined,
    registered: tri(form.registered),
    accountConnected: tri(form.accountConnected),
    setupComplete: tri(form.setupComplete),
    tzOffsetMinutes,
    timeZone: localTimeZone(),
  };
}

/** Panel 2, "Send SMS to unpaid invitations": the SMS is always limited to one segment. */
export function InvitationsPanel() {
  const { t } = useTranslation("admin");
  const ids = useId();
  const triLabels = useTriLabels();
  const triWord = (v: TriState) => (v === "all" ? "" : t(`tri.${v}`));
  const { form, update, errors, billingDetails, review, reviewProps, startReview, confirmDialog } = useAudienceSend({
    source: "invitations",
    initialForm,
    audience: invitationAudience,
    schema: invitationAudienceSchema,
    dateFields: DATE_FIELDS,
    limited: () => true,
    describe: (f) =>
      filterLines([
        [t("invitations.start"), formatDay(f.startDate)],
        [t("invitations.end"), formatDay(f.endDate)],
        [t("filters.registered"), triWord(f.registered)],
        [t("filters.proxyInstalled"), triWord(f.accountConnected)],
        [t("filters.setupComplete"), triWord(f.setupComplete)],
      ]),
  });

  if (review && reviewProps) {
    const columns: Column<InvitationRow>[] = [
      { key: "name", header: t("columns.name"), cell: (r) => (r.unregistered ? <em className="muted">{t("invitations.unregistered")}</em> : r.name) },
      { key: "phone", header: t("columns.phone"), className: "nowrap", cell: (r) => formatUsPhone(r.phone) || r.phone },
      { key: "invited", header: t("columns.invitationDate"), className: "nowrap", cell: (r) => formatDDMMYY(r.invitedAt) ?? "" },
      { key: "registered", header: t("columns.registered"), cell: (r) => <BoolMark value={!r.unregistered} yes={t("tri.yes")} no={t("tri.no")} /> },
      { key: "connected", header: t("columns.accountConnected"), cell: (r) => <BoolMark value={r.accountConnected} yes={t("tri.yes")} no={t("tri.no")} /> },
      { key: "setup", header: t("columns.filtersComplete"), cell: (r) => <BoolMark value={r.setupComplete} yes={t("tri.yes")} no={t("tri.no")} /> },
    ];
    return (
      <AudiencePanel title={t("invitations.title")} reviewing>
        <ReviewStep<InvitationFilters, InvitationRow>
          list={invitationAudienceList}
          {...reviewProps}
          columns={columns}
          summary={(n) => t("invitations.summary", { n })}
          loadError={t("errors.fetchData")}
          nothingToReview={t("review.nothingInvitations")}
        />
        {confirmDialog}
      </AudiencePanel>
    );
  }

  return (
    <AudiencePanel title={t("invitations.title")} reviewing={false}>
      <AudienceForm onSubmit={startReview}>
        <div className="date-grid">
          <DateField
            id={`${ids}-s`}
            label={t("invitations.start")}
            value={form.startDate}
            onChange={(startDate) => update({ startDate })}
            error={errors.startDate}
          />
          <DateField id={`${ids}-e`} label={t("invitations.end")} value={form.endDate} onChange={(endDate) => update({ endDate })} error={errors.endDate} />
        </div>
        <div className="tri-grid">
          <TriStateSelect label={t("filters.registered")} value={form.registered} onChange={(registered) => update({ registered })} labels={triLabels} />
          <TriStateSelect
            label={t("filters.proxyInstalled")}
            value={form.accountConnected}
            onChange={(accountConnected) => update({ accountConnected })}
            labels={triLabels}
          />
          <TriStateSelect
            label={t("filters.setupComplete")}
            value={form.setupComplete}
            onChange={(setupComplete) => update({ setupComplete })}
            labels={triLabels}
          />
        </div>
        <MessageFields value={form} onChange={update} limit billingDetails={billingDetails} errors={errors} />
      </AudienceForm>
    </AudiencePanel>
  );
}
