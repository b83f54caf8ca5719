import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { z } from "zod";
import { Dialog } from "../../../components/ui/Dialog";
import { USERS_NS } from "../../../i18n/admin-users";
import { fieldErrorText, useSchemaForm } from "../../../lib/forms";

type Props = {
  open: boolean;
  title: string;
  description: string;
  confirmLabel: string;
  danger?: boolean;
  onCancel: () => void;
  /** Resolves when done; a rejection keeps the dialog open with the error shown. */
  onConfirm: (reason: string) => Promise<void>;
};

/** The server's rule (admin-users.ts, reasonBody): 3 to 500 characters once trimmed. */
export const reasonField = z.string().trim().min(3, "admin-users:reason.required").max(500, "tooLong");
const reasonForm = z.object({ reason: reasonField });

/** A confirm for an action on someone's account that asks why (the reason goes in the audit log). */
export function ReasonDialog({ open, title, description, confirmLabel, danger, onCancel, onConfirm }: Props) {
  const { t } = useTranslation(USERS_NS);
  const id = useId();
  const form = useSchemaForm(reasonForm, { reason: "" });
  // What the action's call answered: words already (the server's, or the screen's own), not a key.
  const [failure, setFailure] = useState<string | null>(null);
  const error = fieldErrorText(t, form.formState.errors.reason) ?? failure;
  const close = () => {
    form.reset();
    setFailure(null);
    onCancel();
  };
  return (
    <Dialog open={open} title={title} onClose={close}>
      <form
        noValidate
        onSubmit={form.onSubmit(async (values) => {
          setFailure(null);
          try {
            await onConfirm(values.reason);
            form.reset();
          } catch (err) {
            setFailure(err instanceof Error && err.message ? err.message : t("error"));
          }
        })}
      >
        <p>{description}</p>
        <div className="field">
          <label htmlFor={id}>{t("reason.label")}</label>
          <textarea
            id={id}
            maxLength={500}
            rows={3}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${id}-error` : undefined}
            {...form.register("reason", { onChange: () => failure && setFailure(null) })}
          />
          {error && (
            <p id={`${id}-error`} className="field-error" role="alert">
              {error}
            </p>
          )}
        </div>
        <div className="actions">
          <button type="button" className="button button-secondary" onClick={close}>
            {t("cancel")}
          </button>
          <button type="submit" className={danger ? "button button-danger" : "button"} disabled={form.submitting}>
            {confirmLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
