import { useTranslation } from "react-i18next";
import "../../i18n/app";
import "./app-notices.css";

/** "A new version is ready — Reload": the button has the waiting version take over (docs/installable-app.md). */
export function UpdatePrompt({ onReload }: { onReload: () => void }) {
  const { t } = useTranslation("app");
  return (
    <div className="callout app-notice" role="status">
      <span>{t("update.ready")}</span>{" "}
      <button type="button" className="button button-small" onClick={onReload}>
        {t("update.reload")}
      </button>
    </div>
  );
}
