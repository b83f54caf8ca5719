import type { TFunction } from "i18next";
import { useId } from "react";
import { useTranslation } from "react-i18next";
import { CAMPAIGN_PURPOSES, type CampaignPurpose, type MessageLanguage, OPT_OUT_LINES, smsBodyFor } from "../../../shared/marketing";
import { fitsOneSegment } from "../../../shared/sms";
import type { WhatsAppTemplate } from "../../../shared/templates";
import type { z } from "../../../shared/zod";
import { SmsTextArea } from "../../components/ui/SmsTextArea";
import { TemplatePicker, templateText } from "../../components/ui/TemplatePicker";
import { useTemplates } from "./api";
import { useSmsLabels } from "./labels";

export type Channel = "sms" | "whatsapp";
/**
 * What a panel asks about a message: the channel and content, what it is for (marketing or a
 * transactional kind: docs/messaging-rules.md), its language (the opt-out line's) and an optional
 * start time (a datetime-local value in the admin's zone).
 */
export type MessageValue = {
  channel: Channel;
  message: string;
  templateId: string;
  purpose: CampaignPurpose | "";
  language: MessageLanguage;
  scheduledAt: string;
};
export type MessageErrors = { message?: string; template?: string; purpose?: string; scheduledAt?: string };

export const emptyMessage = (language: MessageLanguage = "en"): MessageValue => ({
  channel: "sms",
  message: "",
  templateId: "",
  purpose: "",
  language,
  scheduledAt: "",
});

/** A marketing template makes a marketing message whatever the panel says; an unknown category reads as marketing. */
export function isMarketing(value: MessageValue, template?: WhatsAppTemplate): boolean {
  if (value.purpose === "marketing") return true;
  return value.channel === "whatsapp" && !!template && (template.category ?? "MARKETING") === "MARKETING";
}

const MAX_SCHEDULE_AHEAD_MS = 30 * 86_400_000;
/** The scheduled start as epoch ms (the datetime-local value is the admin's wall clock), or null. */
export function scheduledAtMs(value: MessageValue): number | null {
  if (!value.scheduledAt) return null;
  const t = new Date(value.scheduledAt).getTime();
  return Number.isNaN(t) ? Number.NaN : t;
}

/** The message's problems before review, as translated messages keyed by field. */
export function messageProblems(value: MessageValue, template: WhatsAppTemplate | undefined, limit: boolean, t: TFunction<"admin">, now = Date.now()) {
  const problems: MessageErrors = {};
  if (!value.purpose) problems.purpose = t("errors.purposeRequired");
  if (value.channel === "sms") {
    const body = value.purpose ? smsBodyFor(value.message, value.purpose, value.language).body : value.message;
    if (!value.message.trim()) problems.message = t("errors.messageRequired");
    else if (limit && !fitsOneSegment(body)) problems.message = t("errors.oneSegment");
  } else if (!template) problems.template = t("errors.templateRequired");
  else if (value.purpose && isMarketing(value, template)) problems.template = t("errors.whatsappMarketingUs");
  const at = scheduledAtMs(value);
  if (at !== null && (Number.isNaN(at) || at <= now || at > now + MAX_SCHEDULE_AHEAD_MS)) problems.scheduledAt = t("errors.schedulePast");
  return problems;
}

/** The campaign fields the message contributes. */
export function messageFields(value: MessageValue, template: WhatsAppTemplate | undefined) {
  const at = scheduledAtMs(value);
  return {
    channel: value.channel,
    ...(value.channel === "sms" ? { message: value.message } : { template: { name: template!.name, language: template!.language } }),
    purpose: value.purpose as CampaignPurpose,
    language: value.language,
    ...(at !== null ? { scheduledAt: at } : {}),
  };
}

/** The query the review's rules read (channel, purpose, template, start). */
export function reviewRules(value: MessageValue, template: WhatsAppTemplate | undefined) {
  const at = scheduledAtMs(value);
  return {
    channel: value.channel,
    purpose: value.purpose || undefined,
    templateName: value.channel === "whatsapp" ? template?.name : undefined,
    templateLanguage: value.channel === "whatsapp" ? template?.language : undefined,
    scheduledAt: at !== null && !Number.isNaN(at) ? at : undefined,
  };
}

type Props = {
  value: MessageValue;
  onChange: (patch: Partial<MessageValue>) => void;
  /** Whether the SMS must fit one segment right now. */
  limit: boolean;
  limitControl?: Parameters<typeof SmsTextArea>[0]["limitControl"];
  billingDetails: boolean;
  errors: MessageErrors;
};

/** Message type (SMS default, or WhatsApp), then the SMS text or the template with its preview. */
export function MessageFields({ value, onChange, limit, limitControl, billingDetails, errors }: Props) {
  const { t } = useTranslation("admin");
  const name = useId();
  const purposeName = useId();
  const ids = useId();
  const smsLabels = useSmsLabels();
  const templates = useTemplates(billingDetails && value.channel === "whatsapp");
  const template = findTemplate(templates.data?.Items, value.templateId);
  const marketing = isMarketing(value, template);
  return (
    <>
      <fieldset className="radio-row purpose-row" aria-describedby={`${ids}-purpose-hint${errors.purpose ? ` ${ids}-purpose-error` : ""}`}>
        <legend>{t("message.purpose")}</legend>
        {CAMPAIGN_PURPOSES.map((p) => (
          <label key={p} className="check">
            <input type="radio" name={purposeName} value={p} checked={value.purpose === p} onChange={() => onChange({ purpose: p })} />
            {t(`message.purposes.${p}`)}
          </label>
        ))}
        <small id={`${ids}-purpose-hint`} className="muted">
          {t("message.purposeHint")}
        </small>
        {errors.purpose && (
          <p id={`${ids}-purpose-error`} className="field-error">
            {errors.purpose}
          </p>
        )}
      </fieldset>
      <fieldset className="radio-row">
        <legend>{t("message.type")}</legend>
        <label className="check">
          <input type="radio" name={name} value="sms" checked={value.channel === "sms"} onChange={() => onChange({ channel: "sms" })} />
          {t("message.sms")}
        </label>
        <label className="check">
          <input
            type="radio"
            name={name}
            value="whatsapp"
            checked={value.channel === "whatsapp"}
            // Only admins with billingDetails may send templates (the server refuses the others too).
            disabled={!billingDetails}
            aria-describedby={billingDetails ? undefined : `${ids}-whatsapp-reason`}
            onChange={() => onChange({ channel: "whatsapp" })}
          />
          {t("message.whatsapp")}
        </label>
        {!billingDetails && (
          <small id={`${ids}-whatsapp-reason`} className="muted">
            {t("message.templatesNeedBilling")}
          </small>
        )}
      </fieldset>
      {value.channel === "sms" ? (
        <>
          <SmsTextArea
            label={t("message.text")}
            value={value.message}
            onChange={(message) => onChange({ message })}
            limit={limit}
            labels={smsLabels}
            limitControl={limitControl}
            error={errors.message}
            sentAs={value.purpose === "marketing" ? (text) => smsBodyFor(text, "marketing", value.language).body : undefined}
          />
          {value.purpose === "marketing" && <p className="muted opt-out-note">{t("message.optOutLine", { line: OPT_OUT_LINES[value.language] })}</p>}
        </>
      ) : !billingDetails ? (
        <p className="notice">{t("message.templatesNeedBilling")}</p>
      ) : templates.error ? (
        <p className="alert" role="alert">
          {t("message.templatesError")}
        </p>
      ) : !templates.data ? (
        <p className="loading-inline" role="status">
          <span className="spinner spinner-small" aria-hidden="true" /> {t("message.templatesLoading")}
        </p>
      ) : (
        <TemplatePicker
          templates={templates.data.Items}
          value={value.templateId}
          onChange={(templateId) => onChange({ templateId })}
          labels={{ template: t("message.template"), placeholder: t("message.selectTemplate"), preview: t("message.preview") }}
          error={errors.template}
        />
      )}
      {value.channel === "whatsapp" && template && <p className="muted">{t("message.templateCategory", { category: template.category ?? "MARKETING" })}</p>}
      {value.channel === "whatsapp" && marketing && (
        <p className="alert" role="alert">
          {t("message.whatsappMarketingUs")}
        </p>
      )}
      <div className="field-row">
        <div className="field">
          <label htmlFor={`${ids}-language`}>{t("message.language")}</label>
          <select id={`${ids}-language`} value={value.language} onChange={(e) => onChange({ language: e.target.value as MessageLanguage })}>
            <option value="en">{t("message.languages.en")}</option>
            <option value="es">{t("message.languages.es")}</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${ids}-schedule`}>{t("message.schedule")}</label>
          <input
            id={`${ids}-schedule`}
            type="datetime-local"
            value={value.scheduledAt}
            aria-describedby={`${ids}-schedule-hint${errors.scheduledAt ? ` ${ids}-schedule-error` : ""}`}
            aria-invalid={Boolean(errors.scheduledAt) || undefined}
            onChange={(e) => onChange({ scheduledAt: e.target.value })}
          />
          <small id={`${ids}-schedule-hint`} className="muted">
            {t("message.scheduleHint")}
          </small>
          {errors.scheduledAt && (
            <p id={`${ids}-schedule-error`} className="field-error">
              {errors.scheduledAt}
            </p>
          )}
        </div>
      </div>
    </>
  );
}

/** Translation keys in place of words: the form rules below word their issues when shown. */
const asKeys = ((key: string) => `admin:${key}`) as unknown as TFunction<"admin">;

/**
 * The message rules of both admin send forms (messageProblems above) as zod issues on their fields,
 * with translation keys for messages, so a form validated by zod shows them and clears them as the
 * cause is fixed. `templates` are the ones on offer.
 */
export function checkMessage(value: MessageValue, limited: boolean, templates: WhatsAppTemplate[] | undefined, ctx: z.RefinementCtx) {
  const problems = messageProblems(value, findTemplate(templates, value.templateId), limited, asKeys);
  for (const [field, key] of Object.entries(problems)) if (key) ctx.addIssue({ code: "custom", path: [field], message: key });
}

export function findTemplate(templates: WhatsAppTemplate[] | undefined, id: string) {
  return templates?.find((t) => t.id === id);
}

/** The read-only preview in the review step. */
export function MessagePreview({ channel, message, template }: { channel: Channel; message: string; template?: WhatsAppTemplate }) {
  const { t } = useTranslation("admin");
  const id = useId();
  if (channel === "sms") {
    return (
      <div className="field">
        <label htmlFor={id}>{t("message.preview")}</label>
        <textarea id={id} readOnly value={message} className="template-preview" />
      </div>
    );
  }
  const header = templateText(template, "HEADER");
  return (
    <div className="field">
      <label htmlFor={id}>
        {t("message.preview")}: {template ? `${template.name} (${template.language})` : ""}
      </label>
      <textarea id={id} readOnly value={[header, templateText(template, "BODY")].filter(Boolean).join("\n\n")} className="template-preview" />
    </div>
  );
}
