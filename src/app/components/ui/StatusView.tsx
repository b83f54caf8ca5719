import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Icon } from "./Icon";
import type { IconName } from "./icon-names";

type Props = {
  kind: "loading" | "empty" | "error";
  /** The headline; loading and error have defaults ("Loading…", "An error has occurred."). */
  title?: ReactNode;
  message?: ReactNode;
  icon?: IconName;
  /** Error views offer "Try again" when given this. */
  onRetry?: () => void;
  /** A further action (a link or button) under the message. */
  action?: ReactNode;
  /** Less padding, for inside a card or table. */
  compact?: boolean;
};

/**
 * The one loading / empty / error view. Loading is announced politely (role="status"), an error
 * at once (role="alert"); each says what happened in words and offers the way on.
 */
export function StatusView({ kind, title, message, icon, onRetry, action, compact }: Props) {
  const { t } = useTranslation();
  const className = `status-view status-view-${kind}${compact ? " status-view-compact" : ""}`;
  if (kind === "loading") {
    return (
      <div className={className} role="status">
        <span className="spinner" aria-hidden="true" />
        <p className="status-view-message">{title ?? t("loading")}</p>
      </div>
    );
  }
  return (
    <div className={className} role={kind === "error" ? "alert" : undefined}>
      <span className="status-view-icon" aria-hidden="true">
        <Icon name={icon ?? (kind === "error" ? "circle-alert" : "inbox")} />
      </span>
      <p className="status-view-title">{title ?? (kind === "error" ? t("errors.generic") : t("empty"))}</p>
      {message && <p className="status-view-message">{message}</p>}
      {(onRetry || action) && (
        <div className="actions">
          {onRetry && (
            <button type="button" className="button button-secondary" onClick={onRetry}>
              <Icon name="refresh-cw" />
              {t("retry")}
            </button>
          )}
          {action}
        </div>
      )}
    </div>
  );
}
