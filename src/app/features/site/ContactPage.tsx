import { type ChangeEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { appSchema, phoneSchema } from "../../../shared/auth";
import { CONTACT_FORM_CONSENT } from "../../../shared/consent-texts";
import { CONTACT_MESSAGE_MAX, contactSchema } from "../../../shared/contact";
import { formatUsPhone } from "../../../shared/phone";
import { z } from "../../../shared/zod";
import { ChoiceField, FormMessage, TextField } from "../../components/ui/FormField";
import { Icon } from "../../components/ui/Icon";
import { PhoneField } from "../../components/ui/PhoneField";
import { ApiClientError, publicApi, unwrap } from "../../lib/api-client";
import { apiErrorKey, required, useSchemaForm } from "../../lib/forms";
import { useSiteInfo } from "./api";
import "../../i18n/auth";
import "../../i18n/site";
import "./site.css";

type Sent = { name: string; phone: string };

/** The Worker's contact schema, with the fields a person must fill in saying so. */
const contactForm = contactSchema.omit({ language: true }).extend({
  name: required(z.string().trim().max(100)),
  phoneNumber: required(phoneSchema),
  message: required(z.string().trim().max(CONTACT_MESSAGE_MAX)),
  app: appSchema,
});

/**
 * /contact: support hours and a form that files a lead for the admins (POST /api/contact). The
 * hidden "website" field is a honeypot: people never see it, bots fill it in. The messaging consent
 * box is optional and unticked; ticked, the version of its exact wording goes with the message and
 * the server records it in the consent ledger (docs/messaging-rules.md).
 */
export default function ContactPage() {
  const { t, i18n } = useTranslation("site");
  const site = useSiteInfo();
  const [sent, setSent] = useState<Sent | null>(null);
  const [marketingConsent, setMarketingConsent] = useState(false);
  const language = i18n.language === "es" ? "es" : "en";
  const initial = { name: "", phoneNumber: "", email: "", message: "", app: "flex" as const, website: "" };
  const form = useSchemaForm(contactForm, initial);
  const { app, message, website } = form.watch();
  const change = (name: "app" | "message" | "website", value: string) => form.setValue(name, value as never, { shouldValidate: form.formState.isSubmitted });

  const submit = form.onSubmit(async (data) => {
    try {
      const consent = marketingConsent ? { marketingConsent: { version: CONTACT_FORM_CONSENT.version } } : {};
      await unwrap(publicApi.contact.$post({ json: { ...data, email: data.email ?? "", language, ...consent } }));
      setSent({ name: data.name, phone: formatUsPhone(data.phoneNumber) });
      form.reset(initial);
      setMarketingConsent(false);
    } catch (err) {
      form.setFormError(err instanceof ApiClientError && err.status === 429 ? "site:contact.errors.tooMany" : apiErrorKey(err, "site:contact.errors.failed"));
    }
  });

  return (
    <div className="contact-layout">
      <div>
        <h1>{t("common:titles.contact")}</h1>
        <p className="site-lead">{t("contact.lead")}</p>
        <div className="card contact-facts">
          <h2>
            <Icon name="clock" />
            {t("contact.hoursTitle")}
          </h2>
          <p>{t("contact.hours")}</p>
          <h2>
            <Icon name="mail" />
            {t("contact.emailTitle")}
          </h2>
          <p>{site.data ? <a href={`mailto:${site.data.supportEmail}`}>{site.data.supportEmail}</a> : t("common:loading")}</p>
          <h2>
            <Icon name="message-square" />
            {t("contact.chatTitle")}
          </h2>
          <p>{t("contact.chat")}</p>
        </div>
      </div>
      <section className="card" aria-labelledby="contact-form-title">
        <h2 id="contact-form-title">{t("contact.formTitle")}</h2>
        {sent ? (
          <div className="form-success" role="status">
            <p>
              <strong>{t("contact.sentTitle")}</strong>
            </p>
            <p>{t("contact.sent", sent)}</p>
            <button type="button" className="link-button" onClick={() => setSent(null)}>
              {t("contact.another")}
            </button>
          </div>
        ) : (
          <form onSubmit={submit} noValidate>
            <TextField {...form.field("name")} label={t("contact.name")} autoComplete="name" />
            <PhoneField {...form.field("phoneNumber")} label={t("contact.phone")} hint={t("contact.phoneHint")} />
            <TextField {...form.field("email")} label={t("contact.email")} type="email" autoComplete="email" inputMode="email" />
            <ChoiceField
              legend={t("contact.app")}
              name="app"
              value={app}
              choices={[
                { value: "flex", label: "Amazon Flex" },
                { value: "spark", label: "Walmart Spark" },
              ]}
              onChange={(value) => change("app", value)}
            />
            <MessageField
              name="message"
              value={message}
              error={form.field("message").error}
              onChange={(event) => change("message", event.target.value)}
              label={t("contact.message")}
              hint={t("contact.messageHint", { count: Math.max(0, CONTACT_MESSAGE_MAX - message.length) })}
            />
            <div className="form-field contact-consent">
              <label className="check" htmlFor="contact-consent">
                <input
                  id="contact-consent"
                  type="checkbox"
                  checked={marketingConsent}
                  disabled={form.submitting}
                  aria-describedby="contact-consent-hint"
                  onChange={(e) => setMarketingConsent(e.target.checked)}
                />
                <span>{CONTACT_FORM_CONSENT[language]}</span>
              </label>
              <p id="contact-consent-hint" className="form-hint">
                {t("contact.consentHint")}
              </p>
            </div>
            <div className="contact-trap" aria-hidden="true">
              <label htmlFor="contact-website">{t("contact.honeypot")}</label>
              <input id="contact-website" name="website" tabIndex={-1} autoComplete="off" value={website} onChange={(e) => change("website", e.target.value)} />
            </div>
            <FormMessage>{form.formError}</FormMessage>
            <div className="actions">
              <button type="submit" className="button" disabled={form.submitting}>
                <Icon name="send" />
                {form.submitting ? t("contact.sending") : t("contact.submit")}
              </button>
            </div>
          </form>
        )}
      </section>
    </div>
  );
}

/** A text area with the same label, hint and error wiring as the other fields. */
function MessageField({
  label,
  hint,
  error,
  name,
  value,
  onChange,
}: {
  label: string;
  hint: string;
  error: string | null;
  name: string;
  value: string;
  onChange: (event: ChangeEvent<HTMLTextAreaElement>) => void;
}) {
  const describedBy = [`${name}-hint`, error ? `${name}-error` : null].filter(Boolean).join(" ");
  return (
    <div className="form-field">
      <label htmlFor={`contact-${name}`}>{label}</label>
      <textarea
        id={`contact-${name}`}
        name={name}
        value={value}
        maxLength={CONTACT_MESSAGE_MAX}
        rows={6}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        onChange={onChange}
      />
      <p id={`${name}-hint`} className="form-hint">
        {hint}
      </p>
      {error && (
        <p id={`${name}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}
