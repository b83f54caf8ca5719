import { useDeferredValue, useId, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useLocation, useNavigate } from "react-router";
import { type Column, DataTable } from "../../../components/ui/DataTable";
import { PageHead } from "../../../components/ui/PageHead";
import { Pager, usePaging } from "../../../components/ui/Pager";
import { toast } from "../../../components/ui/Toast";
import "../../../i18n/admin";
import { pageCount, pageOffset } from "../../../../shared/paging";
import { formatUsPhone } from "../../../../shared/phone";
import { newIdempotencyKey, serverMessage, useSettings, useTemplates } from "../api";
import { readToolsHandoff } from "../handoff";
import { emptyMessage, findTemplate, type MessageErrors, MessageFields, type MessageValue, messageFields, messageProblems } from "../MessageFields";
import { useAdminUser } from "../use-admin-user";
import { createListCampaign } from "./api";
import { MAX_LIST_SIZE, parsePhoneList } from "./phone-list";
import "./tools.css";

const SHOWN_INVALID = 50;
const initialContent: MessageValue = emptyMessage();

/** /admin/tools: send an SMS or a WhatsApp template to a typed or pasted list of numbers. */
export default function ToolsPage() {
  const { t } = useTranslation("admin");
  const ids = useId();
  const navigate = useNavigate();
  const { isOwner, billingDetails } = useAdminUser();
  const settings = useSettings();
  // "Message these" on the leads page arrives with its numbers filled in.
  const handoff = readToolsHandoff(useLocation().state);
  const [text, setText] = useState(() => handoff?.phones.join("\n") ?? "");
  const deferredText = useDeferredValue(text);
  const list = useMemo(() => parsePhoneList(deferredText), [deferredText]);
  const [excluded, setExcluded] = useState<ReadonlySet<string>>(new Set());
  const { page, pageSize, restart, pager } = usePaging();
  const [content, setContent] = useState<MessageValue>(initialContent);
  const { channel } = content;
  const [limit, setLimit] = useState(true);
  const [errors, setErrors] = useState<{ phones?: string } & MessageErrors>({});
  const [sending, setSending] = useState(false);
  // One key per prepared send: a retry after a lost answer, or a double click, sends once.
  const [idempotencyKey, setIdempotencyKey] = useState(newIdempotencyKey);
  const templates = useTemplates(billingDetails && channel === "whatsapp");
  const template = findTemplate(templates.data?.Items, content.templateId);

  const selected = list.valid.filter((p) => !excluded.has(p));
  const pages = pageCount(list.valid.length, pageSize);
  const current = Math.min(page, pages);
  const pageRows = list.valid.slice(pageOffset(current, pageSize), pageOffset(current, pageSize) + pageSize);
  const tooMany = list.valid.length > MAX_LIST_SIZE;

  const changed =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      setIdempotencyKey(newIdempotencyKey());
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

  async function send() {
    const next: typeof errors = {};
    if (selected.length === 0) next.phones = t("tools.noneSelected");
    if (tooMany) next.phones = t("tools.tooMany", { max: MAX_LIST_SIZE });
    Object.assign(next, messageProblems(content, template, limit, t));
    setErrors(next);
    if (Object.keys(next).length > 0) return;
    if (!window.confirm(t("send.confirm", { n: selected.length }))) return;

    setSending(true);
    const loading = toast.loading(t("send.sending"));
    try {
      const created = await createListCampaign({
        idempotencyKey,
        source: "list",
        ...messageFields(content, template),
        phones: selected,
        ...(isOwner && !limit ? { liftLimit: true } : {}),
      });
      toast.success(
        <>
          {created.message || t("send.sent", { n: selected.length })}{" "}
          <a
            href={`/admin/campaigns/${created.campaign.id}`}
            onClick={(e) => {
              // The toaster sits outside the router: navigate with this screen's function.
              e.preventDefault();
              void navigate(`/admin/campaigns/${created.campaign.id}`);
            }}
          >
            {t("send.viewProgress")}
          </a>
        </>,
      );
      setText("");
      setContent(initialContent);
      setExcluded(new Set());
      restart();
      setLimit(true);
      setIdempotencyKey(newIdempotencyKey());
    } catch (err) {
      toast.error(serverMessage(err) ?? t("errors.generic"));
    } finally {
      toast.dismiss(loading);
      setSending(false);
    }
  }

  return (
    <section className="tools">
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
              onChange={(e) => changed(setText)(e.target.value)}
            />
            <small id={`${ids}-phones-hint`} className="muted">
              {t("tools.phonesHint")}
            </small>
          </div>
          <p id={`${ids}-phones-summary`} aria-live="polite">
            {t("tools.summary", { valid: list.valid.length, duplicates: list.duplicates })}
          </p>
          {list.invalid.length > 0 && (
            <div className="alert" role="alert">
              <p>{t("tools.invalid", { n: list.invalid.length })}</p>
              <ul className="invalid-list">
                {/* The same bad line may appear twice; its position in the pasted list tells them apart. */}
                {list.invalid.slice(0, SHOWN_INVALID).map((bad, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: the list is fixed once shown, and duplicates are expected
                  <li key={`${i}-${bad}`}>
                    <code>{bad}</code>
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
                  page: (n) => t("paging.page", { page: n }),
                }}
              />
            </>
          )}
          {errors.phones && <p className="field-error">{errors.phones}</p>}
        </section>

        <section className="card" aria-labelledby={`${ids}-message`}>
          <h2 id={`${ids}-message`}>{t("tools.messageTitle")}</h2>
          <MessageFields
            value={content}
            onChange={(patch) => changed(setContent)((c: MessageValue) => ({ ...c, ...patch }))}
            limit={limit}
            billingDetails={billingDetails}
            errors={errors}
            limitControl={{
              checked: limit,
              disabled: !isOwner,
              onChange: changed(setLimit),
              label: t("sms.limit"),
              hint: t("sms.limitHint", { name: settings.data?.ownerName ?? t("drivers.theOwner") }),
            }}
          />
          <div className="actions">
            <button type="button" className="button" disabled={sending || selected.length === 0 || tooMany} onClick={() => void send()}>
              {sending ? t("send.sending") : t("tools.send", { n: selected.length })}
            </button>
          </div>
        </section>
      </div>
    </section>
  );
}
