import * as RadixDialog from "@radix-ui/react-dialog";
import { type ReactNode, useCallback, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Icon } from "./Icon";
import "./Dialog.css";

type DialogProps = {
  open: boolean;
  /** Esc, the close button and a press on the backdrop all call this; the parent closes it. */
  onClose: () => void;
  title: ReactNode;
  children?: ReactNode;
  /** The buttons along the bottom, most important last. */
  actions?: ReactNode;
  wide?: boolean;
};

/**
 * A modal dialog on Radix UI's Dialog (docs/decisions/0009): the rest of the page is hidden from
 * screen readers and takes no pointer, focus stays inside and goes back where it was on close.
 * Focus starts on the first control, or on the one marked `data-autofocus`. Its name is the title
 * and its description the content.
 */
export function Dialog({ open, onClose, title, children, actions, wide }: DialogProps) {
  const { t } = useTranslation();
  // Radix gives focus back to its own trigger; these dialogs open from anywhere (a button, a send helper).
  const opener = useRef<HTMLElement | null>(null);
  return (
    <RadixDialog.Root
      open={open}
      onOpenChange={(next) => {
        // The parent's state decides: Esc and a press outside only ask it to close.
        if (!next) onClose();
      }}
    >
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="dialog-backdrop" />
        <RadixDialog.Content
          className={wide ? "dialog dialog-wide" : "dialog"}
          // Without content there is no description (Radix would otherwise point at a missing one).
          {...(children ? {} : { "aria-describedby": undefined })}
          onOpenAutoFocus={(event) => {
            opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
            const first = (event.currentTarget as HTMLElement).querySelector<HTMLElement>("[data-autofocus]");
            if (!first) return;
            event.preventDefault();
            first.focus();
          }}
          onCloseAutoFocus={(event) => {
            event.preventDefault();
            if (opener.current?.isConnected) opener.current.focus();
            opener.current = null;
          }}
        >
          <div className="dialog-head">
            <RadixDialog.Title>{title}</RadixDialog.Title>
            <RadixDialog.Close className="icon-button" aria-label={t("close")}>
              <Icon name="x" />
            </RadixDialog.Close>
          </div>
          {children && (
            <RadixDialog.Description asChild>
              <div className="dialog-content">{children}</div>
            </RadixDialog.Description>
          )}
          {actions && <div className="dialog-actions">{actions}</div>}
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
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
