import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import type { InvitationListRow } from "../../../../shared/admin-lists";
import { localTimeZone } from "../../../../shared/audience";
import { formatUsPhone } from "../../../../shared/phone";
import { BoolMark, type Column, DataTable } from "../../../components/ui/DataTable";
import { Pager } from "../../../components/ui/Pager";
import { StatusView } from "../../../components/ui/StatusView";
import { LISTS_NS } from "../../../i18n/admin-lists";
import { asQuery } from "../../../lib/api-client";
import { formatCount, formatDateTime } from "../format";
import { DateFilter, FilterBar, SelectFilter, TextFilter, usePagerWords } from "../ListFilters";
import { useListParams } from "../use-list-params";
import { useInvitations } from "./api";

const TRI = ["all", "yes", "no"] as const;

/** /admin/invitations: every invitation, with its inviter, the invitee, and whether they registered, paid and earned the free week. */
export default function InvitationsPage() {
  const { t, i18n } = useTranslation(LISTS_NS);
  const list = useListParams();
  const tri = TRI.map((value) => ({ value, label: t(`tri.${value}`) }));
  const filters = {
    app: list.pick("app", ["all", "flex", "spark"] as const, "all"),
    registered: list.pick("registered", TRI, "all"),
    paid: list.pick("paid", TRI, "all"),
    freeWeek: list.pick("freeWeek", TRI, "all"),
    from: list.text("from"),
    to: list.text("to"),
  };
  const invitations = useInvitations(asQuery({ ...filters, search: list.text("search"), timeZone: localTimeZone() ?? "UTC", ...list.paging }));
  const yesNo = { yes: t("yes"), no: t("no") };
  const pagerWords = usePagerWords();

  const columns: Column<InvitationListRow>[] = [
    { key: "at", header: t("invitations.date"), className: "nowrap", cell: (r) => formatDateTime(r.invitedAt) },
    { key: "inviter", header: t("invitations.inviter"), cell: (r) => <Link to={`/admin/users/${r.inviterId}`}>{r.inviterName}</Link> },
    { key: "phone", header: t("invitations.phone"), className: "nowrap", cell: (r) => formatUsPhone(r.phone) || r.phone },
    {
      key: "invitee",
      header: t("invitations.invitee"),
      cell: (r) =>
        r.inviteeId ? <Link to={`/admin/users/${r.inviteeId}`}>{r.inviteeName}</Link> : <span className="muted">{t("invitations.unregistered")}</span>,
    },
    { key: "registered", header: t("invitations.registered"), cell: (r) => <BoolMark value={r.inviteeId !== null} {...yesNo} /> },
    { key: "paid", header: t("invitations.paid"), cell: (r) => <BoolMark value={r.paid} {...yesNo} /> },
    { key: "free", header: t("invitations.freeWeek"), cell: (r) => <BoolMark value={r.freeWeek} {...yesNo} /> },
    { key: "app", header: t("app"), cell: (r) => (r.app === "flex" ? "Flex" : "Spark") },
  ];

  return (
    <section>
      <h1>{t("invitations.title")}</h1>
      <FilterBar title={t("filters")} onReset={list.reset} resetLabel={t("reset")}>
        <TextFilter label={t("search")} hint={t("invitations.searchHint")} value={list.search} onChange={list.setSearch} />
        <SelectFilter
          label={t("app")}
          value={filters.app}
          options={[
            { value: "all", label: t("tri.all") },
            { value: "flex", label: "Flex" },
            { value: "spark", label: "Spark" },
          ]}
          onChange={(app) => list.update({ app })}
        />
        <SelectFilter label={t("invitations.registered")} value={filters.registered} options={tri} onChange={(registered) => list.update({ registered })} />
        <SelectFilter label={t("invitations.paid")} value={filters.paid} options={tri} onChange={(paid) => list.update({ paid })} />
        <SelectFilter label={t("invitations.freeWeek")} value={filters.freeWeek} options={tri} onChange={(freeWeek) => list.update({ freeWeek })} />
        <DateFilter label={t("from")} value={filters.from} lang={i18n.language} onChange={(from) => list.update({ from })} />
        <DateFilter label={t("to")} value={filters.to} lang={i18n.language} onChange={(to) => list.update({ to })} />
      </FilterBar>
      {invitations.error && !invitations.data ? (
        <StatusView kind="error" message={t("error")} onRetry={() => void invitations.mutate()} />
      ) : !invitations.data ? (
        <StatusView kind="loading" />
      ) : (
        <>
          <p role="status" aria-live="polite">
            {t("invitations.count", { count: invitations.data.total, n: formatCount(invitations.data.total, i18n.language) })}
          </p>
          <DataTable
            caption={t("invitations.title")}
            columns={columns}
            rows={invitations.data.rows}
            rowKey={(r) => r.id}
            busy={invitations.isValidating}
            empty={t("invitations.empty")}
          />
          <Pager {...list.pager} total={invitations.data.total} labels={pagerWords} />
        </>
      )}
    </section>
  );
}
