import { useTranslation } from "react-i18next";
import { resellerApplySchema } from "../../../../shared/billing";
import { z } from "../../../../shared/zod";
import { toast } from "../../../components/ui/Toast";
import { useSchemaForm } from "../../../lib/forms";
import { billingApi, type ResellerSummary } from "../api";
import { day } from "../format";

/** The server's application, as typed: the terms are a checkbox that must be ticked. */
const applicationSchema = z.object({
  message: resellerApplySchema.shape.message,
  acceptTerms: z.boolean().refine((accepted) => accepted, "billing:reseller.acceptRequired"),
});

/**
 * Someone not (or no longer) a reseller: the application while none is pending, "under review"
 * once sent, or why access was revoked.
 */
export function ResellerApplication({ summary, onApplied }: { summary: ResellerSummary; onApplied: () => void }) {
  const { t } = useTranslation("billing");
  const form = useSchemaForm(applicationSchema, { message: "", acceptTerms: false });

  if (summary.status === "applied") {
    return (
      <p className="callout" role="status">
        {t("reseller.underReview", { date: day(summary.appliedAt) })}
      </p>
    );
  }
  if (summary.status === "revoked") {
    return (
      <p className="alert" role="alert">
        {t("reseller.revoked")}
      </p>
    );
  }

  const submit = form.onSubmit(async ({ message }) => {
    try {
      await billingApi.applyAsReseller(message ?? "");
      toast.success(t("reseller.applied"));
      onApplied();
    } catch {
      form.setFormError("billing:reseller.applyError");
    }
  });
  const termsError = form.field("acceptTerms").error;
  const error = form.formError ?? termsError;

  return (
    <>
      <p className="lead">{t("reseller.intro")}</p>
      <ul className="reseller-points">
        <li>{t("reseller.point1")}</li>
        <li>{t("reseller.point2")}</li>
        <li>{t("reseller.point3")}</li>
      </ul>
      {summary.status === "rejected" && <p className="notice">{t("reseller.rejected")}</p>}
      <form className="card reseller-apply" onSubmit={(e) => void submit(e)} noValidate>
        <div className="form-field">
          <label htmlFor="reseller-message">{t("reseller.message")}</label>
          <textarea id="reseller-message" rows={3} maxLength={500} {...form.register("message")} />
        </div>
        <label className="check">
          <input type="checkbox" {...form.register("acceptTerms")} aria-invalid={termsError ? true : undefined} />
          {t("reseller.acceptTerms")}
        </label>
        {error && (
          <p className="alert" role="alert">
            {error}
          </p>
        )}
        <div className="actions">
          <button type="submit" className="button" disabled={form.submitting}>
            {t("reseller.apply")}
          </button>
        </div>
      </form>
    </>
  );
}
