import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import type { InvitationListRow } from "../../../../shared/admin-lists";
import type { AuditRow, UserMessageRow } from "../../../../shared/admin-users";
import type { Page } from "../../../../shared/paging";
import { formatUsPhone } from "../../../../shared/phone";
import { type Column, DataTable } from "../../../components/ui/DataTable";
import { Pager, usePaging } from "../../../components/ui/Pager";
import { USERS_NS } from "../../../i18n/admin-users";
import { formatDateTime } from "../format";
import { useUserAudit, useUserInvitations, useUserMessages } from "./api";
import { usePagerLabels } from "./labels";

/** A paged table section: loading, error, empty and the rows, with the pager when there is more than a page. */
function TableSection<Row>({
  id,
  title,
  data,
  error,
  loading,
  columns,
  rowKey,
  empty,
  paging,
}: {
  id: string;
  title: string;
  data: Page<Row> | undefined;
  error: Error | undefined;
  loading: boolean;
  columns: Column<Row>[];
  rowKey: (row: Row) => string | number;
  empty: ReactNode;
  paging: ReturnType<typeof usePaging>;
}) {
  const { t } = useTranslation(USERS_NS);
  const labels = usePagerLabels();
  return (
    <section className="user-section" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {error && !data ? (
        <p className="alert" role="alert">
          {t("error")}
        </p>
      ) : !data ? (
        <div className="loading-block" role="status">
          <span className="spinner" aria-hidden="true" />
          <span>{t("loading")}</span>
        </div>
      ) : (
        <>
          <DataTable caption={title} columns={columns} rows={data.rows} rowKey={rowKey} busy={loading} empty={empty} />
          {data.total > paging.pageSize && <Pager {...paging.pager} total={data.total} labels={labels} />}
        </>
      )}
    </section>
  );
}

export function InvitationsSection({ userId }: { userId: string }) {
  const { t } = useTranslation(USERS_NS);
  const paging = usePaging();
  const invitations = useUserInvitations(userId, { page: paging.page, pageSize: paging.pageSize });
  const columns: Column<InvitationListRow>[] = [
    { key: "at", header: t("invitations.date"), cell: (r) => formatDateTime(r.invitedAt) },
    { key: "phone", header: t("columns.phone"), cell: (r) => formatUsPhone(r.phone) || r.phone },
    {
      key: "invitee",
      header: t("invitations.invitee"),
      cell: (r) => (r.inviteeId ? <Link to={`/admin/users/${r.inviteeId}`}>{r.inviteeName}</Link> : t("invitations.unregistered")),
    },
    { key: "paid", header: t("invitations.paid"), cell: (r) => (r.paid ? t("yes") : t("no")) },
    { key: "free", header: t("invitations.freeWeek"), cell: (r) => (r.freeWeek ? t("yes") : t("no")) },
  ];
  return (
    <TableSection
      id="invitations-heading"
      title={t("invitations.title")}
      data={invitations.data}
      error={invitations.error}
      loading={invitations.isValidating}
      columns={columns}
      rowKey={(r) => r.id}
      empty={t("invitations.none")}
      paging={paging}
    />
  );
}

export function MessagesSection({ userId }: { userId: string }) {
  const { t } = useTranslation(USERS_NS);
  const paging = usePaging();
  const messages = useUserMessages(userId, { page: paging.page, pageSize: paging.pageSize });
  const columns: Column<UserMessageRow>[] = [
    { key: "at", header: t("messages.at"), cell: (m) => formatDateTime(m.at) },
    { key: "channel", header: t("messages.channel"), cell: (m) => (m.channel === "sms" ? "SMS" : "WhatsApp") },
    { key: "text", header: t("messages.text"), cell: (m) => m.text ?? (m.template ? t("messages.template", { name: m.template }) : "") },
    { key: "status", header: t("messages.status"), cell: (m) => `${t(`messages.statuses.${m.status}`)}${m.errorCode ? ` (${m.errorCode})` : ""}` },
    { key: "campaign", header: t("messages.campaign"), cell: (m) => <Link to={`/admin/campaigns/${m.campaignId}`}>#{m.campaignId}</Link> },
  ];
  return (
    <TableSection
      id="messages-heading"
      title={t("messages.title")}
      data={messages.data}
      error={messages.error}
      loading={messages.isValidating}
      columns={columns}
      rowKey={(m) => m.id}
      empty={t("messages.none")}
      paging={paging}
    />
  );
}

export function AuditSection({ userId }: { userId: string }) {
  const { t } = useTranslation(USERS_NS);
  const paging = usePaging();
  const audit = useUserAudit(userId, { page: paging.page, pageSize: paging.pageSize });
  const columns: Column<AuditRow>[] = [
    { key: "at", header: t("audit.at"), cell: (a) => formatDateTime(a.at) },
    {
      key: "actor",
      header: t("audit.actor"),
      cell: (a) => (a.actorId ? <Link to={`/admin/users/${a.actorId}`}>{a.actorName ?? `#${a.actorId}`}</Link> : t("audit.system")),
    },
    { key: "action", header: t("audit.action"), cell: (a) => <code>{a.action}</code> },
    { key: "details", header: t("audit.details"), cell: (a) => (a.details ? <code className="audit-details">{JSON.stringify(a.details)}</code> : "") },
  ];
  return (
    <TableSection
      id="audit-heading"
      title={t("audit.title")}
      data={audit.data}
      error={audit.error}
      loading={audit.isValidating}
      columns={columns}
      rowKey={(a) => a.id}
      empty={t("audit.none")}
      paging={paging}
    />
  );
}
