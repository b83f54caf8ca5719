import { type ReactNode, useCallback, useEffect, useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Icon } from "./Icon";
import "./Dialog.css";

type DialogProps = {
  open: boolean;
  /** Esc, the close button and a click on the backdrop all call this; the parent closes it. */
  onClose: () => void;
  title: ReactNode;
  children?: ReactNode;
  /** The buttons along the bottom, most important last. */
  actions?: ReactNode;
  wide?: boolean;
};

/**
 * A modal dialog on the native <dialog> element: showModal() makes the rest of the page inert,
 * keeps focus inside and puts focus back where it was on close. Mark the control to focus first
 * with `data-autofocus`. Its name is the title and its description the content.
 */
export function Dialog({ open, onClose, title, children, actions, wide }: DialogProps) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      // showModal() focuses the first control; a [data-autofocus] one (a safe Cancel) goes first.
      dialog.querySelector<HTMLElement>("[data-autofocus]")?.focus();
    } else if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: a click on the backdrop is a pointer's Esc; the keyboard has Esc itself.
    <dialog
      ref={ref}
      className={wide ? "dialog dialog-wide" : "dialog"}
      aria-labelledby={`${id}-title`}
      aria-describedby={children ? `${id}-content` : undefined}
      onCancel={(event) => {
        // Esc: the parent's state decides, so the element never closes behind React's back.
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        // A click on the backdrop lands on the <dialog> itself, outside its content box.
        if (event.target !== ref.current) return;
        const box = ref.current.getBoundingClientRect();
        const inside = event.clientX >= box.left && event.clientX <= box.right && event.clientY >= box.top && event.clientY <= box.bottom;
        if (!inside) onClose();
      }}
    >
      {open && (
        <>
          <div className="dialog-head">
            <h2 id={`${id}-title`}>{title}</h2>
            <button type="button" className="icon-button" aria-label={t("close")} onClick={onClose}>
              <Icon name="x" />
            </button>
          </div>
          {children && (
            <div id={`${id}-content`} className="dialog-content">
              {children}
            </div>
          )}
          {actions && <div className="dialog-actions">{actions}</div>}
        </>
      )}
    </dialog>
  );
}

export type ConfirmOptions = {
  title: ReactNode;
  message?: ReactNode;
  confirmLabel: ReactNode;
  cancelLabel?: ReactNode;
  /** "danger" for what cannot be undone (a red confirm button). */
  tone?: "primary" | "danger";
};

/**
 * `const [confirm, confirmDialog] = useConfirm()`: render `confirmDialog` once, then
 * `if (!(await confirm({ … }))) return;` where the code used window.confirm. Focus starts on
 * Cancel, the safe choice.
 */
export function useConfirm() {
  const { t } = useTranslation();
  const [pending, setPending] = useState<{ options: ConfirmOptions; resolve: (ok: boolean) => void } | null>(null);
  const confirm = useCallback((options: ConfirmOptions) => new Promise<boolean>((resolve) => setPending({ options, resolve })), []);
  const settle = (ok: boolean) => {
    pending?.resolve(ok);
    setPending(null);
  };
  const options = pending?.options;
  const dialog = (
    <Dialog
      open={pending !== null}
      onClose={() => settle(false)}
      title={options?.title}
      actions={
        <>
          <button type="button" className="button button-secondary" data-autofocus onClick={() => settle(false)}>
            {options?.cancelLabel ?? t("cancel")}
          </button>
          <button type="button" className={options?.tone === "danger" ? "button button-danger" : "button"} onClick={() => settle(true)}>
            {options?.confirmLabel}
          </button>
        </>
      }
    >
      {options?.message}
    </Dialog>
  );
  return [confirm, dialog] as const;
}
