import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useNavigate } from "react-router";
import { LEAD_STAGES, LEAD_STATUSES, type LeadRow, leadPatchSchema } from "../../../../shared/admin-lists";
import { localTimeZone } from "../../../../shared/audience";
import { formatUsPhone } from "../../../../shared/phone";
import { z } from "../../../../shared/zod";
import { type Column, DataTable } from "../../../components/ui/DataTable";
import { SelectField } from "../../../components/ui/FormField";
import { Pager } from "../../../components/ui/Pager";
import { ReadView } from "../../../components/ui/ReadView";
import { LISTS_NS } from "../../../i18n/admin-lists";
import { asQuery } from "../../../lib/api-client";
import { refusalMessage, useSchemaForm } from "../../../lib/forms";
import { useSession } from "../../../lib/session";
import { FormDialog } from "../FormDialog";
import { formatCount, formatDateTime } from "../format";
import type { ToolsHandoff } from "../handoff";
import { DateFilter, FilterBar, SelectFilter, TextFilter, usePagerWords } from "../ListFilters";
import { useListParams } from "../use-list-params";
import { updateLead, useAdmins, useLeads } from "./api";

/**
 * /admin/leads: contact-form messages and drivers who dropped off on the way to paying, with their
 * stage, status, owner and notes; a selection can be messaged from the tools page.
 */
export default function LeadsPage() {
  const { t, i18n } = useTranslation(LISTS_NS);
  const navigate = useNavigate();
  const list = useListParams();
  const admins = useAdmins();
  const [selected, setSelected] = useState<ReadonlyMap<number, LeadRow>>(new Map());
  const [editing, setEditing] = useState<LeadRow | null>(null);
  const filters = {
    stage: list.pick("stage", ["all", ...LEAD_STAGES] as const, "all"),
    status: list.pick("status", ["all", ...LEAD_STATUSES] as const, "all"),
    owner: list.text("owner") || "all",
    from: list.text("from"),
    to: list.text("to"),
  };
  const leads = useLeads(asQuery({ ...filters, search: list.text("search"), timeZone: localTimeZone() ?? "UTC", ...list.paging }));
  const pagerWords = usePagerWords();
  const rows = leads.data?.rows ?? [];

  const toggle = (lead: LeadRow, on: boolean) =>
    setSelected((prev) => {
      const next = new Map(prev);
      if (on) next.set(lead.id, lead);
      else next.delete(lead.id);
      return next;
    });
  const messageThese = () => {
    const chosen = [...selected.values()];
    const apps = new Set(chosen.map((l) => l.app));
    const handoff: ToolsHandoff = { phones: [...new Set(chosen.map((l) => l.phone))], app: apps.size === 1 ? chosen[0]!.app : undefined, from: "leads" };
    void navigate("/admin/tools", { state: handoff });
  };

  const columns: Column<LeadRow>[] = [
    {
      key: "select",
      className: "col-select",
      header: (
        <input
          type="checkbox"
          aria-label={t("leads.selectPage")}
          checked={rows.length > 0 && rows.every((l) => selected.has(l.id))}
          disabled={rows.length === 0}
          onChange={(e) => {
            for (const l of rows) toggle(l, e.target.checked);
          }}
        />
      ),
      cell: (l) => (
        <input
          type="checkbox"
          aria-label={t("leads.select", { name: l.name ?? l.phone })}
          checked={selected.has(l.id)}
          onChange={(e) => toggle(l, e.target.checked)}
        />
      ),
    },
    { key: "at", header: t("leads.date"), className: "nowrap", cell: (l) => formatDateTime(l.createdAt) },
    { key: "name", header: t("leads.name"), cell: (l) => (l.userId ? <Link to={`/admin/users/${l.userId}`}>{l.name ?? l.phone}</Link> : (l.name ?? "")) },
    { key: "phone", header: t("leads.phone"), className: "nowrap", cell: (l) => formatUsPhone(l.phone) || l.phone },
    { key: "stage", header: t("leads.stage"), cell: (l) => <span className="badge-stage">{t(`leads.stages.${l.stage}`)}</span> },
    { key: "status", header: t("leads.status"), cell: (l) => t(`leads.statuses.${l.status}`) },
    { key: "owner", header: t("leads.owner"), cell: (l) => l.ownerName ?? <span className="muted">{t("leads.nobody")}</span> },
    {
      key: "about",
      header: t("leads.about"),
      cell: (l) => {
        const text = [l.message, l.notes].filter(Boolean).join(" · ");
        return text ? (
          <span className="cell-clip" title={text}>
            {text}
          </span>
        ) : (
          <span className="muted">{t(`leads.sources.${l.source}`, { defaultValue: l.source })}</span>
        );
      },
    },
    {
      key: "edit",
      header: <span className="visually-hidden">{t("leads.edit")}</span>,
      cell: (l) => (
        <button type="button" className="button button-secondary" onClick={() => setEditing(l)} aria-label={t("leads.editOne", { name: l.name ?? l.phone })}>
          {t("leads.edit")}
        </button>
      ),
    },
  ];

  return (
    <section>
      <h1>{t("leads.title")}</h1>
      <FilterBar title={t("filters")} onReset={list.reset} resetLabel={t("reset")}>
        <TextFilter label={t("search")} hint={t("leads.searchHint")} value={list.search} onChange={list.setSearch} />
        <SelectFilter
          label={t("leads.stage")}
          value={filters.stage}
          options={[{ value: "all" as const, label: t("tri.all") }, ...LEAD_STAGES.map((s) => ({ value: s, label: t(`leads.stages.${s}`) }))]}
          onChange={(stage) => list.update({ stage })}
        />
        <SelectFilter
          label={t("leads.status")}
          value={filters.status}
          options={[{ value: "all" as const, label: t("tri.all") }, ...LEAD_STATUSES.map((s) => ({ value: s, label: t(`leads.statuses.${s}`) }))]}
          onChange={(status) => list.update({ status })}
        />
        <SelectFilter
          label={t("leads.owner")}
          value={filters.owner}
          options={[
            { value: "all", label: t("tri.all") },
            { value: "me", label: t("leads.mine") },
            { value: "none", label: t("leads.nobody") },
            ...(admins.data?.rows ?? []).map((a) => ({ value: String(a.id), label: a.name })),
          ]}
          onChange={(owner) => list.update({ owner })}
        />
        <DateFilter label={t("from")} value={filters.from} lang={i18n.language} onChange={(from) => list.update({ from })} />
        <DateFilter label={t("to")} value={filters.to} lang={i18n.language} onChange={(to) => list.update({ to })} />
      </FilterBar>
      <div className="selection-bar">
        <span aria-live="polite">{t("leads.selected", { count: selected.size })}</span>
        <button type="button" className="button" disabled={selected.size === 0} onClick={messageThese}>
          {t("leads.messageThese", { count: selected.size })}
        </button>
        {selected.size > 0 && (
          <button type="button" className="link-button" onClick={() => setSelected(new Map())}>
            {t("leads.clearSelection")}
          </button>
        )}
      </div>
      <ReadView read={leads} error={t("error")}>
        {(data) => (
          <>
            <p role="status" aria-live="polite">
              {t("leads.count", { count: data.total, n: formatCount(data.total, i18n.language) })}
            </p>
            <DataTable caption={t("leads.title")} columns={columns} rows={rows} rowKey={(l) => l.id} busy={leads.isValidating} empty={t("leads.empty")} />
            <Pager {...list.pager} total={data.total} labels={pagerWords} />
          </>
        )}
      </ReadView>
      {editing && (
        <LeadDialog
          lead={editing}
          admins={admins.data?.rows ?? []}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void leads.mutate();
          }}
        />
      )}
    </section>
  );
}

/** The follow-up form: its selects and text in, the change the server takes out (an empty owner or note clears it). */
const leadFormSchema = z.object({
  status: leadPatchSchema.shape.status.unwrap(),
  ownerId: z
    .string()
    .transform((id) => (id === "" ? null : Number(id)))
    .pipe(leadPatchSchema.shape.ownerId.unwrap()),
  notes: z
    .string()
    .transform((notes) => (notes.trim() === "" ? null : notes))
    .pipe(leadPatchSchema.shape.notes.unwrap()),
});

function LeadDialog({ lead, admins, onClose, onSaved }: { lead: LeadRow; admins: { id: number; name: string }[]; onClose: () => void; onSaved: () => void }) {
  const { t } = useTranslation(LISTS_NS);
  const me = useSession().user;
  const notesId = useId();
  const form = useSchemaForm(leadFormSchema, { status: lead.status, ownerId: lead.ownerId === null ? "" : String(lead.ownerId), notes: lead.notes ?? "" });
  const owners =
    admins.some((a) => a.id === lead.ownerId) || lead.ownerId === null ? admins : [...admins, { id: lead.ownerId, name: lead.ownerName ?? `#${lead.ownerId}` }];
  const { error: notesError, ...notes } = form.field("notes");
  const save = form.onSubmit(async (change) => {
    try {
      await updateLead(lead.id, change);
      onSaved();
    } catch (err) {
      form.setFormError(...refusalMessage(err, "common:errors.generic"));
    }
  });
  return (
    <FormDialog
      title={t("leads.editOne", { name: lead.name ?? formatUsPhone(lead.phone) })}
      onClose={onClose}
      onSubmit={save}
      form={form}
      submitLabel={t("save")}
    >
      {lead.message && <blockquote className="lead-message">{lead.message}</blockquote>}
      <SelectField {...form.field("status")} label={t("leads.status")}>
        {LEAD_STATUSES.map((s) => (
          <option key={s} value={s}>
            {t(`leads.statuses.${s}`)}
          </option>
        ))}
      </SelectField>
      <SelectField {...form.field("ownerId")} label={t("leads.owner")}>
        <option value="">{t("leads.nobody")}</option>
        {owners.map((a) => (
          <option key={a.id} value={String(a.id)}>
            {a.id === me?.id ? t("leads.meNamed", { name: a.name }) : a.name}
          </option>
        ))}
      </SelectField>
      <div className="form-field">
        <label htmlFor={notesId}>{t("leads.notes")}</label>
        <textarea
          id={notesId}
          rows={4}
          maxLength={2000}
          {...notes}
          aria-invalid={notesError ? true : undefined}
          aria-describedby={notesError ? `${notesId}-error` : undefined}
        />
        {notesError && (
          <p id={`${notesId}-error`} className="field-error">
            {notesError}
          </p>
        )}
      </div>
    </FormDialog>
  );
}
