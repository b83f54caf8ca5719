import { useState } from "react";
import { useTranslation } from "react-i18next";
import { TextField, type TextFieldProps } from "../../components/ui/FormField";

/** Digits only, at most six: what a code field keeps of what is typed or pasted ("123 456"). */
export function codeDigits(value: string): string {
  return value.replace(/\D/g, "").slice(0, 6);
}

/** The six-digit SMS or authenticator code: what is typed or pasted is kept as its digits only. */
export function CodeField({ onChange, ...field }: Omit<TextFieldProps, "label">) {
  const { t } = useTranslation("auth");
  return (
    <TextField
      {...field}
      onChange={(e) => {
        e.target.value = codeDigits(e.target.value);
        onChange?.(e);
      }}
      label={t("fields.code")}
      className="code-field"
      inputMode="numeric"
      autoComplete="one-time-code"
      pattern="[0-9]*"
      maxLength={6}
      placeholder="123456"
    />
  );
}

/** Whether a new code is being asked for, and how to ask (the flag is down again however it ends). */
export function useResending() {
  const [resending, setResending] = useState(false);
  const whileResending = async (ask: () => Promise<void>) => {
    setResending(true);
    try {
      await ask();
    } finally {
      setResending(false);
    }
  };
  return [resending, whileResending] as const;
}

/** "Send a new code", "Sending…", or how long until it may be asked again. */
export function ResendButton({ resending, cooldown = 0, onClick }: { resending: boolean; cooldown?: number; onClick: () => void }) {
  const { t } = useTranslation("auth");
  return (
    <button type="button" className="link-button" onClick={onClick} disabled={resending || cooldown > 0}>
      {resending ? t("confirm.resending") : cooldown > 0 ? t("confirm.resendIn", { seconds: cooldown }) : t("confirm.resend")}
    </button>
  );
}
