import { useDeferredValue, useId, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useLocation, useNavigate } from "react-router";
import { z } from "../../../../shared/zod";
import { type Column, DataTable } from "../../../components/ui/DataTable";
import { useConfirm } from "../../../components/ui/Dialog";
import { PageHead } from "../../../components/ui/PageHead";
import { Pager, usePaging } from "../../../components/ui/Pager";
import "../../../i18n/admin";
import { smsBodyFor } from "../../../../shared/marketing";
import { pageCount, pageOffset } from "../../../../shared/paging";
import { formatUsPhone } from "../../../../shared/phone";
import type { WhatsAppTemplate } from "../../../../shared/templates";
import { useValueForm } from "../../../lib/forms";
import { newIdempotencyKey, useSettings, useTemplates } from "../api";
import { readToolsHandoff } from "../handoff";
import { checkMessage, emptyMessage, findTemplate, MessageFields, type MessageValue, messageFields } from "../MessageFields";
import { confirmAndSend } from "../send";
import { useAdminUser } from "../use-admin-user";
import { MAX_LIST_SIZE, parsePhoneList } from "./phone-list";
import "./tools.css";
import { UserPicker } from "./UserPicker";

const SHOWN_INVALID = 50;
type ToolsForm = MessageValue & { text: string; limit: boolean };
const initialForm: ToolsForm = { ...emptyMessage(), text: "", limit: true };

/** /admin/tools: send an SMS or a WhatsApp template to a typed or pasted list of numbers. */
export default function ToolsPage() {
  const { t } = useTranslation("admin");
  const [confirm, confirmDialog] = useConfirm();
  const ids = useId();
  const navigate = useNavigate();
  const { isOwner, billingDetails } = useAdminUser();
  const settings = useSettings();
  // "Message these" on the leads page arrives with its numbers filled in.
  const handoff = readToolsHandoff(useLocation().state);
  const [excluded, setExcluded] = useState<ReadonlySet<string>>(new Set());
  const [picking, setPicking] = useState(false);
  const { page, pageSize, restart, pager } = usePaging();
  // One key per prepared send: a retry after a lost answer, or a double click, sends once.
  const [idempotencyKey, setIdempotencyKey] = useState(newIdempotencyKey);
  // The rules read the templates on offer, which load once the form says WhatsApp.
  const offered = useRef<WhatsAppTemplate[] | undefined>(undefined);
  const schema = z.custom<ToolsForm>().superRefine((form, ctx) => {
    const valid = parsePhoneList(form.text).valid;
    if (valid.length > MAX_LIST_SIZE) ctx.addIssue({ code: "custom", path: ["phones"], message: "admin:tools.tooMany" });
    else if (!valid.some((p) => !excluded.has(p))) ctx.addIssue({ code: "custom", path: ["phones"], message: "admin:tools.noneSelected" });
    checkMessage(form, form.limit, offered.current, ctx);
  });
  const form = useValueForm(schema, { ...initialForm, text: handoff?.phones.join("\n") ?? "" });
  const { text, channel, limit } = form.values;
  // A long paste is parsed off the typing path.
  const deferredText = useDeferredValue(text);
  const list = useMemo(() => parsePhoneList(deferredText), [deferredText]);
  const templates = useTemplates(billingDetails && channel === "whatsapp");
  offered.current = templates.data?.Items;
  const template = findTemplate(templates.data?.Items, form.values.templateId);

  const selected = list.valid.filter((p) => !excluded.has(p));
  const pages = pageCount(list.valid.length, pageSize);
  const current = Math.min(page, pages);
  const pageRows = list.valid.slice(pageOffset(current, pageSize), pageOffset(current, pageSize) + pageSize);
  const tooMany = list.valid.length > MAX_LIST_SIZE;

  const change = (patch: Partial<ToolsForm>) => {
    form.update(patch);
    setIdempotencyKey(newIdempotencyKey());
  };
  // Numbers picked from the user tables join the typed or pasted ones (the list removes duplicates).
  const addPhones = (phones: string[]) => {
    if (phones.length === 0) return;
    const before = form.values.text.replace(/\s+$/, "");
    change({ text: `${before}${before ? "\n" : ""}${phones.join("\n")}` });
    setExcluded((prev) => {
      const next = new Set(prev);
      for (const p of phones) next.delete(p);
      return next;
    });
  };

  const toggle = (phones: string[], on: boolean) => {
    setExcluded((prev) => {
      const next = new Set(prev);
      for (const p of phones) {
        if (on) next.delete(p);
        else next.add(p);
      }
      return next;
    });
    setIdempotencyKey(newIdempotencyKey());
  };

  const columns: Column<string>[] = [
    {
      key: "select",
      className: "col-select",
      header: (
        <input
          type="checkbox"
          aria-label={t("review.selectPage")}
          checked={pageRows.length > 0 && pageRows.every((p) => !excluded.has(p))}
          disabled={pageRows.length === 0}
          onChange={(e) => toggle(pageRows, e.target.checked)}
        />
      ),
      cell: (p) => (
        <input type="checkbox" aria-label={t("review.selectRow", { phone: p })} checked={!excluded.has(p)} onChange={(e) => toggle([p], e.target.checked)} />
      ),
    },
    { key: "phone", header: t("columns.phone"), className: "nowrap", cell: (p) => formatUsPhone(p) },
  ];

  const send = form.onSubmit(async () => {
    const created = await confirmAndSend(
      {
        idempotencyKey,
        source: "list",
        ...messageFields(form.values, template),
        phones: selected,
        ...(isOwner && !limit ? { liftLimit: true } : {}),
      },
      {
        channel,
        message:
          channel === "whatsapp"
            ? null
            : form.values.purpose === "marketing"
              ? smsBodyFor(form.values.message, "marketing", form.values.language).body
              : form.values.message,
        template: channel === "whatsapp" && template ? `${template.name} (${template.language})` : null,
        audience: "list",
        recipients: selected.length,
      },
      t,
      navigate,
      confirm,
    );
    if (created) {
      form.reset(initialForm);
      setExcluded(new Set());
      restart();
      setIdempotencyKey(newIdempotencyKey());
    }
  });

  return (
    <section className="tools">
      {confirmDialog}
      <PageHead back={{ to: "/admin", label: t("actions.goBack") }} title={t("tools.title")}>
        <Link to="/admin/campaigns">{t("campaigns.link")}</Link>
      </PageHead>
      <div className="tools-grid">
        <section className="card" aria-labelledby={`${ids}-list`}>
          <h2 id={`${ids}-list`}>{t("tools.listTitle")}</h2>
          {handoff && (
            <p className="notice" role="status">
              {t("tools.fromLeads", { count: handoff.phones.length })}
            </p>
          )}
          <div className="field">
            <label htmlFor={`${ids}-phones`}>{t("tools.phones")}</label>
            <textarea
              id={`${ids}-phones`}
              className="phone-input"
              value={text}
              placeholder={"(305) 555-0100\n+1 407 555 0101"}
              aria-describedby={`${ids}-phones-hint ${ids}-phones-summary`}
              onChange={(e) => change({ text: e.target.value })}
            />
            <small id={`${ids}-phones-hint`} className="muted">
              {t("tools.phonesHint")}
            </small>
          </div>
          <button type="button" className="button button-secondary" aria-expanded={picking} onClick={() => setPicking((open) => !open)}>
            {t("tools.picker.open")}
          </button>
          {picking && <UserPicker onAdd={addPhones} />}
          <p id={`${ids}-phones-summary`} aria-live="polite">
            {t("tools.summary", { valid: list.valid.length, duplicates: list.duplicates })}
          </p>
          {list.invalid.length > 0 && (
            <div className="alert" role="alert">
              <p>{t("tools.invalid", { n: list.invalid.length })}</p>
              <ul className="invalid-list">
                {keyedByValue(list.invalid.slice(0, SHOWN_INVALID)).map(({ key, value }) => (
                  <li key={key}>
                    <code>{value}</code>
                  </li>
                ))}
              </ul>
              {list.invalid.length > SHOWN_INVALID && <p>{t("tools.moreInvalid", { n: list.invalid.length - SHOWN_INVALID })}</p>}
            </div>
          )}
          {tooMany && (
            <p className="alert" role="alert">
              {t("tools.tooMany", { max: MAX_LIST_SIZE })}
            </p>
          )}
          {list.valid.length > 0 && (
            <>
              <div className="selection-bar">
                <strong aria-live="polite">{t("review.selection", { selected: selected.length, total: list.valid.length })}</strong>
                <span>
                  <button type="button" className="link-button" onClick={() => toggle(list.valid, true)}>
                    {t("tools.selectAll")}
                  </button>
                  <button type="button" className="link-button" onClick={() => toggle(list.valid, false)}>
                    {t("tools.selectNone")}
                  </button>
                </span>
              </div>
              <DataTable caption={t("tools.phones")} columns={columns} rows={pageRows} rowKey={(p) => p} empty={null} />
              <Pager
                {...pager}
                page={current}
                total={list.valid.length}
                labels={{
                  rowsPerPage: t("paging.rowsPerPage"),
                  previous: t("paging.previous"),
                  next: t("paging.next"),
                  page: (n, pages) => t("paging.page", { page: n, pages }),
                }}
              />
            </>
          )}
          {form.errorText("phones") && <p className="field-error">{form.errorText("phones", { max: MAX_LIST_SIZE })}</p>}
        </section>

        <section className="card" aria-labelledby={`${ids}-message`}>
          <h2 id={`${ids}-message`}>{t("tools.messageTitle")}</h2>
          <MessageFields
            value={form.values}
            onChange={change}
            limit={limit}
            billingDetails={billingDetails}
            errors={{
              message: form.errorText("message"),
              template: form.errorText("template"),
              purpose: form.errorText("purpose"),
              scheduledAt: form.errorText("scheduledAt"),
            }}
            limitControl={{
              checked: limit,
              disabled: !isOwner,
              onChange: (checked) => change({ limit: checked }),
              label: t("sms.limit"),
              hint: t("sms.limitHint", { name: settings.data?.ownerName ?? t("drivers.theOwner") }),
            }}
          />
          <div className="actions">
            <button type="button" className="button" disabled={form.submitting || selected.length === 0 || tooMany} onClick={() => void send()}>
              {form.submitting ? t("send.sending") : t("tools.send", { n: selected.length })}
            </button>
          </div>
        </section>
      </div>
    </section>
  );
}

/** React keys for a list that may repeat a value: the value and its occurrence (a repeated bad line shows each time). */
function keyedByValue(values: string[]): { key: string; value: string }[] {
  const seen = new Map<string, number>();
  return values.map((value) => {
    const n = (seen.get(value) ?? 0) + 1;
    seen.set(value, n);
    return { key: `${value}#${n}`, value };
  });
}
