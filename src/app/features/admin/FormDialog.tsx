import type { BaseSyntheticEvent, ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Dialog } from "../../components/ui/Dialog";
import { FormMessage } from "../../components/ui/FormField";

/**
 * A console dialog that is one form (a refund, an approval, a lead's follow-up): the fields, the
 * form's message, Cancel (focused first: the safe choice) and the submit button, disabled while it
 * runs. `form` is a `useSchemaForm`'s; `onSubmit` its `form.onSubmit(handler)`.
 */
export function FormDialog({
  title,
  onClose,
  onSubmit,
  form,
  submitLabel,
  danger,
  children,
}: {
  title: ReactNode;
  onClose: () => void;
  onSubmit: (event?: BaseSyntheticEvent) => Promise<void>;
  form: { formError: string | null; submitting: boolean };
  submitLabel: ReactNode;
  /** A red submit button, for what cannot be undone. */
  danger?: boolean;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <Dialog open title={title} onClose={onClose}>
      <form noValidate onSubmit={onSubmit}>
        {children}
        <FormMessage>{form.formError}</FormMessage>
        <div className="actions">
          <button type="button" className="button button-secondary" onClick={onClose} data-autofocus>
            {t("cancel")}
          </button>
          <button type="submit" className={danger ? "button button-danger" : "button"} disabled={form.submitting}>
            {submitLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
