import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { Icon } from "../../components/ui/Icon";

/** A value to share (an invite link, a referral code): read-only, selected on focus, with Copy. */
export function CopyField({ label, value }: { label: string; value: string }) {
  const { t } = useTranslation("billing");
  const id = useId();
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      // No clipboard (an old browser, a denied permission): the field is selected for a manual copy.
      document.getElementById(id)?.focus();
    }
  };
  return (
    <div className="form-field copy-field">
      <label htmlFor={id}>{label}</label>
      <div className="copy-field-row">
        <input id={id} readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" className="button button-secondary" onClick={() => void copy()}>
          <Icon name={copied ? "check" : "copy"} />
          {copied ? t("copy.copied") : t("copy.copy")}
        </button>
      </div>
      <span className="visually-hidden" role="status">
        {copied ? t("copy.copied") : ""}
      </span>
    </div>
  );
}
