import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { Dialog } from "../../../components/ui/Dialog";
import { USERS_NS } from "../../../i18n/admin-users";

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

/** A confirm for an action on someone's account that asks why (the reason goes in the audit log). */
export function ReasonDialog({ open, title, description, confirmLabel, danger, onCancel, onConfirm }: Props) {
  const { t } = useTranslation(USERS_NS);
  const id = useId();
  const [reason, setReason] = useState("");
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  const short = reason.trim().length < 3;
  const close = () => {
    setReason("");
    setState({ busy: false, error: null });
    onCancel();
  };
  return (
    <Dialog open={open} title={title} onClose={close}>
      <form
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          if (short) return setState({ busy: false, error: t("reason.required") });
          setState({ busy: true, error: null });
          try {
            await onConfirm(reason.trim());
            setReason("");
            setState({ busy: false, error: null });
          } catch (err) {
            setState({ busy: false, error: err instanceof Error && err.message ? err.message : t("error") });
          }
        }}
      >
        <p>{description}</p>
        <div className="field">
          <label htmlFor={id}>{t("reason.label")}</label>
          <textarea
            id={id}
            value={reason}
            maxLength={500}
            rows={3}
            aria-invalid={state.error ? true : undefined}
            aria-describedby={state.error ? `${id}-error` : undefined}
            onChange={(e) => {
              setReason(e.target.value);
              if (state.error) setState((s) => ({ ...s, error: null }));
            }}
          />
          {state.error && (
            <p id={`${id}-error`} className="field-error" role="alert">
              {state.error}
            </p>
          )}
        </div>
        <div className="actions">
          <button type="button" className="button button-secondary" onClick={close}>
            {t("cancel")}
          </button>
          <button type="submit" className={danger ? "button button-danger" : "button"} disabled={state.busy}>
            {confirmLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
