import { type FormEvent, type ReactNode, useEffect, useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import type { ZodType } from "zod";
import { smsBodyFor } from "../../../../shared/marketing";
import type { WhatsAppTemplate } from "../../../../shared/templates";
import { z } from "../../../../shared/zod";
import { useConfirm } from "../../../components/ui/Dialog";
import { useValueForm } from "../../../lib/forms";
import { type CampaignRequest, newIdempotencyKey, useTemplates } from "../api";
import { checkMessage, findTemplate, type MessageErrors, MessagePreview, type MessageValue, messageFields, reviewRules } from "../MessageFields";
import { confirmAndSend, type FilterLine } from "../send";
import { useAdminUser } from "../use-admin-user";

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
  /** The filters the form sets, in words, for the confirm dialog (those left at "all" are left out). */
  describe: (form: Form) => FilterLine[];
};

export type FieldErrors<DateField extends string> = Partial<Record<DateField, string>> & MessageErrors;

/**
 * The flow both panels share: the form, its check, the review with its idempotency key, then
 * confirm and send; a sent campaign starts the panel afresh.
 */
export function useAudienceSend<Form extends MessageValue, Filters extends Record<string, unknown>, DateField extends string>(
  options: Options<Form, Filters, DateField>,
) {
  const { source, initialForm, audience, schema, dateFields, limited, extra, describe } = options;
  const { t } = useTranslation("admin");
  const navigate = useNavigate();
  const { billingDetails } = useAdminUser();
  const [review, setReview] = useState<{ audience: Filters; key: string; form: Form } | null>(null);
  const [confirm, confirmDialog] = useConfirm();
  // The rules read the templates on offer, which load once the form says WhatsApp.
  const offered = useRef<WhatsAppTemplate[] | undefined>(undefined);
  const formSchema = z.custom<Form>().superRefine((value, ctx) => {
    // The audience is checked by the server's own schema; its issues on dates mean "out of order".
    const parsed = schema.safeParse(audience(value));
    const dates = new Set((parsed.error?.issues ?? []).map((issue) => String(issue.path[0])).filter((field) => dateFields.includes(field as DateField)));
    for (const field of dates) ctx.addIssue({ code: "custom", path: [field], message: "admin:errors.dateOrder" });
    checkMessage(value, limited(value), offered.current, ctx);
  });
  const valueForm = useValueForm(formSchema, initialForm);
  const form = valueForm.values;
  const templates = useTemplates(billingDetails && form.channel === "whatsapp");
  offered.current = templates.data?.Items;
  const errors = Object.fromEntries(
    [...dateFields, "message", "template", "purpose", "scheduledAt"]
      .map((field) => [field, valueForm.errorText(field)])
      .filter(([, text]) => text !== undefined),
  ) as FieldErrors<DateField>;

  const update = valueForm.update;
  const startReview = valueForm.onSubmit((value) => setReview({ audience: audience(value), key: newIdempotencyKey(), form: value }));

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
      {
        channel: f.channel,
        message: f.channel === "whatsapp" ? null : f.purpose === "marketing" ? smsBodyFor(f.message, "marketing", f.language).body : f.message,
        template: f.channel === "whatsapp" ? (template ? `${template.name} (${template.language})` : null) : null,
        audience: source,
        filters: describe(f),
        recipients,
      },
      t,
      navigate,
      confirm,
    );
    if (created) {
      valueForm.reset(initialForm);
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

  return { form, update, errors, billingDetails, review: review?.form ?? null, reviewProps, startReview, confirmDialog };
}

/** The confirm dialog's filter lines from [label, value in words] pairs; an empty value (a filter left at "all") is left out. */
export function filterLines(pairs: [label: string, value: string][]): FilterLine[] {
  return pairs.filter(([, value]) => value !== "").map(([label, value]) => ({ label, value }));
}

/** A panel's card: its title, then the form or the review. */
export function AudiencePanel({ title, reviewing, children }: { title: string; reviewing: boolean; children: ReactNode }) {
  const id = useId();
  const ref = useRef<HTMLElement>(null);
  const wasReviewing = useRef(reviewing);
  useEffect(() => {
    // The review replaces a long form: its top (panel 2's sits below panel 1) is brought into view,
    // or the admin is left looking at the middle of a table.
    if (reviewing && !wasReviewing.current) ref.current?.scrollIntoView?.({ block: "start" });
    wasReviewing.current = reviewing;
  }, [reviewing]);
  return (
    <section ref={ref} className={reviewing ? "card panel panel-reviewing" : "card panel"} aria-labelledby={`${id}-title`}>
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
