import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { FormMessage } from "../../components/ui/FormField";

/**
 * The end of a profile form: its error, then save (busy while submitting) and back to /profile,
 * or, for a form on /profile itself, `onCancel` (putting back what is stored).
 */
export function FormActions({
  error,
  submitting,
  submitLabel,
  onCancel,
}: {
  error: string | null | undefined;
  submitting: boolean;
  submitLabel: string;
  onCancel?: () => void;
}) {
  const { t } = useTranslation("auth");
  return (
    <>
      <FormMessage>{error}</FormMessage>
      <div className="actions">
        <button type="submit" className="button" disabled={submitting}>
          {submitting ? t("profile.saving") : submitLabel}
        </button>
        {onCancel ? (
          <button type="button" className="button button-secondary" disabled={submitting} onClick={onCancel}>
            {t("profile.cancel")}
          </button>
        ) : (
          <Link className="button button-secondary" to="/profile">
            {t("profile.cancel")}
          </Link>
        )}
      </div>
    </>
  );
}
