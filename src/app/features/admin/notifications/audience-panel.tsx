import { type FormEvent, type ReactNode, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import type { ZodType } from "zod";
import { smsBodyFor } from "../../../../shared/marketing";
import { type CampaignRequest, newIdempotencyKey, useTemplates } from "../api";
import { findTemplate, type MessageErrors, MessagePreview, type MessageValue, messageFields, messageProblems, reviewRules } from "../MessageFields";
import { useAdminUser } from "../use-admin-user";
import { confirmAndSend } from "./send";

type Options<Form extends MessageValue, Filters, DateField extends string> = {
  source: "drivers" | "invitations";
  initialForm: Form;
  /** The audience the form describes, as the query the server reads (no paging). */
  audience: (form: Form) => Filters;
  /** The server's schema of that query; its issues on these fields are shown as "dates out of order". */
  schema: ZodType;
  dateFields: readonly DateField[];
  /** Whether the SMS must fit one segment. */
  limited: (form: Form) => boolean;
  /** Extra fields of the campaign (lifting the limit). */
  extra?: (form: Form) => Partial<CampaignRequest>;
};

export type FieldErrors<DateField extends string> = Partial<Record<DateField, string>> & MessageErrors;

/**
 * The flow both panels share: the form, its check, the review with its idempotency key, then
 * confirm and send; a sent campaign starts the panel afresh.
 */
export function useAudienceSend<Form extends MessageValue, Filters extends Record<string, unknown>, DateField extends string>(
  options: Options<Form, Filters, DateField>,
) {
  const { source, initialForm, audience, schema, dateFields, limited, extra } = options;
  const { t } = useTranslation("admin");
  const navigate = useNavigate();
  const { billingDetails } = useAdminUser();
  const [form, setForm] = useState<Form>(initialForm);
  const [errors, setErrors] = useState<FieldErrors<DateField>>({});
  const [review, setReview] = useState<{ audience: Filters; key: string; form: Form } | null>(null);
  const templates = useTemplates(billingDetails && form.channel === "whatsapp");

  const update = (patch: Partial<Form>) => setForm((f) => ({ ...f, ...patch }));

  function startReview(e: FormEvent) {
    e.preventDefault();
    const query = audience(form);
    const next: FieldErrors<DateField> = {};
    const parsed = schema.safeParse(query);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = issue.path[0] as DateField;
        if (dateFields.includes(field)) (next as Record<DateField, string | undefined>)[field] ??= t("errors.dateOrder");
      }
    }
    Object.assign(next, messageProblems(form, findTemplate(templates.data?.Items, form.templateId), limited(form), t));
    setErrors(next);
    if (Object.keys(next).length > 0) return;
    setReview({ audience: query, key: newIdempotencyKey(), form });
  }

  async function send(excludedPhones: string[], recipients: number) {
    if (!review) return;
    const f = review.form;
    const template = findTemplate(templates.data?.Items, f.templateId);
    const created = await confirmAndSend(
      {
        idempotencyKey: review.key,
        source,
        ...messageFields(f, template),
        audience: review.audience,
        excludedPhones,
        ...extra?.(f),
      },
      recipients,
      t,
      navigate,
    );
    if (created) {
      setForm(initialForm);
      setErrors({});
      setReview(null);
    }
  }

  /** What the review step takes from the flow. */
  const reviewProps = review && {
    filters: review.audience,
    rules: reviewRules(review.form, findTemplate(templates.data?.Items, review.form.templateId)),
    preview: (
      <MessagePreview
        channel={review.form.channel}
        message={review.form.purpose === "marketing" ? smsBodyFor(review.form.message, "marketing", review.form.language).body : review.form.message}
        template={findTemplate(templates.data?.Items, review.form.templateId)}
      />
    ),
    onCancel: () => setReview(null),
    onSend: send,
  };

  return { form, update, errors, billingDetails, review: review?.form ?? null, reviewProps, startReview };
}

/** A panel's card: its title, then the form or the review. */
export function AudiencePanel({ title, reviewing, children }: { title: string; reviewing: boolean; children: ReactNode }) {
  const id = useId();
  return (
    <section className={reviewing ? "card panel panel-reviewing" : "card panel"} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      {children}
    </section>
  );
}

/** The filters and message form, with its "Review" button. */
export function AudienceForm({ onSubmit, children }: { onSubmit: (e: FormEvent) => void; children: ReactNode }) {
  const { t } = useTranslation("admin");
  return (
    <form onSubmit={onSubmit} noValidate>
      {children}
      <div className="actions">
        <button type="submit" className="button">
          {t("actions.review")}
        </button>
      </div>
    </form>
  );
}
