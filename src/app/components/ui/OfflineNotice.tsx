import { useSyncExternalStore } from "react";
import { useTranslation } from "react-i18next";
import "../../i18n/app";
import "./app-notices.css";

const subscribe = (onChange: () => void) => {
  window.addEventListener("online", onChange);
  window.addEventListener("offline", onChange);
  return () => {
    window.removeEventListener("online", onChange);
    window.removeEventListener("offline", onChange);
  };
};

/** Whether the browser has a network (navigator.onLine); online in the pre-rendered HTML. */
export function useOnline(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => navigator.onLine,
    () => true,
  );
}

/** Said while the browser has no network: the page on screen is what this device kept (docs/installable-app.md). */
export function OfflineNotice() {
  const { t } = useTranslation("app");
  if (useOnline()) return null;
  return (
    <div className="notice app-notice" role="status">
      <span>
        <strong>{t("offline.title")}</strong> {t("offline.message")}
      </span>
    </div>
  );
}
