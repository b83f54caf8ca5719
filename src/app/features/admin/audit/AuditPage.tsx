import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import type { AuditRow } from "../../../../shared/admin-users";
import { localTimeZone } from "../../../../shared/audience";
import { type Column, DataTable } from "../../../components/ui/DataTable";
import { Pager } from "../../../components/ui/Pager";
import { StatusView } from "../../../components/ui/StatusView";
import { LISTS_NS } from "../../../i18n/admin-lists";
import { asQuery } from "../../../lib/api-client";
import { formatCount, formatDateTime } from "../format";
import { DateFilter, FilterBar, SelectFilter, TextFilter, usePagerWords } from "../ListFilters";
import { useListParams } from "../use-list-params";
import { useAdmins, useAudit, useAuditActions } from "./api";

/** A target like "user:42" links to that user's page; others are shown as they are. */
function Target({ target }: { target: string | null }) {
  const user = target ? /^user:(\d+)$/.exec(target) : null;
  if (user) return <Link to={`/admin/users/${user[1]}`}>{target}</Link>;
  return <code>{target ?? ""}</code>;
}

/** /admin/audit: who did what, to whom and when, newest first; filtered by actor, action, target and day. */
export default function AuditPage() {
  const { t, i18n } = useTranslation(LISTS_NS);
  const list = useListParams();
  const actions = useAuditActions();
  const admins = useAdmins();
  const target = list.text("target");
  // A target is "kind:id"; until one is complete it is not sent (the server would refuse it).
  const targetValid = /^[a-z_]+:\d+$/.test(target);
  const filters = { actor: list.text("actor"), action: list.text("action"), from: list.text("from"), to: list.text("to") };
  const audit = useAudit(asQuery({ ...filters, target: targetValid ? target : "", timeZone: localTimeZone() ?? "UTC", ...list.paging }));
  const pagerWords = usePagerWords();

  const columns: Column<AuditRow>[] = [
    { key: "at", header: t("audit.at"), className: "nowrap", cell: (a) => formatDateTime(a.at) },
    {
      key: "actor",
      header: t("audit.actor"),
      cell: (a) =>
        a.actorId ? <Link to={`/admin/users/${a.actorId}`}>{a.actorName ?? `#${a.actorId}`}</Link> : <span className="muted">{t("audit.system")}</span>,
    },
    { key: "action", header: t("audit.action"), cell: (a) => <code>{a.action}</code> },
    { key: "target", header: t("audit.target"), cell: (a) => <Target target={a.target} /> },
    { key: "details", header: t("audit.details"), cell: (a) => (a.details ? <code className="audit-details">{JSON.stringify(a.details)}</code> : "") },
  ];

  return (
    <section>
      <h1>{t("audit.title")}</h1>
      <FilterBar title={t("filters")} onReset={list.reset} resetLabel={t("reset")}>
        <SelectFilter
          label={t("audit.actor")}
          value={filters.actor}
          options={[{ value: "", label: t("audit.anyone") }, ...(admins.data?.rows ?? []).map((a) => ({ value: String(a.id), label: a.name }))]}
          onChange={(actor) => list.update({ actor })}
        />
        <SelectFilter
          label={t("audit.action")}
          value={filters.action}
          options={[{ value: "", label: t("audit.anyAction") }, ...(actions.data?.actions ?? []).map((a) => ({ value: a, label: a }))]}
          onChange={(action) => list.update({ action })}
        />
        <TextFilter label={t("audit.target")} hint="user:42" value={target} onChange={(value) => list.update({ target: value.trim() })} />
        <DateFilter label={t("from")} value={filters.from} lang={i18n.language} onChange={(from) => list.update({ from })} />
        <DateFilter label={t("to")} value={filters.to} lang={i18n.language} onChange={(to) => list.update({ to })} />
      </FilterBar>
      {target && !targetValid && (
        <p className="field-error" role="alert">
          {t("audit.targetHint")}
        </p>
      )}
      {audit.error && !audit.data ? (
        <StatusView kind="error" message={t("error")} onRetry={() => void audit.mutate()} />
      ) : !audit.data ? (
        <StatusView kind="loading" />
      ) : (
        <>
          <p role="status" aria-live="polite">
            {t("audit.count", { count: audit.data.total, n: formatCount(audit.data.total, i18n.language) })}
          </p>
          <DataTable
            caption={t("audit.title")}
            columns={columns}
            rows={audit.data.rows}
            rowKey={(a) => a.id}
            busy={audit.isValidating}
            empty={t("audit.empty")}
          />
          <Pager {...list.pager} total={audit.data.total} labels={pagerWords} />
        </>
      )}
    </section>
  );
}
