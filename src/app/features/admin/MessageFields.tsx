import { useId } from "react";
import { useTranslation } from "react-i18next";
import type { WhatsAppTemplate } from "../../../shared/templates";
import { SmsTextArea } from "../../components/ui/SmsTextArea";
import { TemplatePicker, templateText } from "../../components/ui/TemplatePicker";
import { useTemplates } from "./api";
import { useSmsLabels } from "./labels";

export type Channel = "sms" | "whatsapp";
export type MessageValue = { channel: Channel; message: string; templateId: string };
export type MessageErrors = { message?: string; template?: string };

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
  const smsLabels = useSmsLabels();
  const templates = useTemplates(billingDetails && value.channel === "whatsapp");
  return (
    <>
      <fieldset className="radio-row">
        <legend>{t("message.type")}</legend>
        <label className="check">
          <input type="radio" name={name} value="sms" checked={value.channel === "sms"} onChange={() => onChange({ channel: "sms" })} />
          {t("message.sms")}
        </label>
        <label className="check">
          <input type="radio" name={name} value="whatsapp" checked={value.channel === "whatsapp"} onChange={() => onChange({ channel: "whatsapp" })} />
          {t("message.whatsapp")}
        </label>
      </fieldset>
      {value.channel === "sms" ? (
        <SmsTextArea
          label={t("message.text")}
          value={value.message}
          onChange={(message) => onChange({ message })}
          limit={limit}
          labels={smsLabels}
          limitControl={limitControl}
          error={errors.message}
        />
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
    </>
  );
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
