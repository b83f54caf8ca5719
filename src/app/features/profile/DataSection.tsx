import { useState } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "../../components/ui/Toast";
import { apiErrorKey } from "../../lib/forms";
import { profileApi } from "./api";

/** The file name the Worker gives the same document (Content-Disposition of GET /api/account/export). */
const EXPORT_FILE = "blockpilot-data.json";

/** "Download my data": one JSON file with everything we hold about the account. */
export function DataSection() {
  const { t } = useTranslation("auth");
  const [busy, setBusy] = useState(false);

  const download = async () => {
    setBusy(true);
    try {
      const data = await profileApi.exportData();
      const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }));
      const link = document.createElement("a");
      link.href = url;
      link.download = EXPORT_FILE;
      link.click();
      URL.revokeObjectURL(url);
      toast.success(t("profile.data.downloaded"));
    } catch (err) {
      toast.error(t(apiErrorKey(err, "profile.data.failed")));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="profile-section">
      <h2>{t("profile.data.title")}</h2>
      <p className="muted">{t("profile.data.lead")}</p>
      <div className="actions">
        <button type="button" className="button button-secondary" disabled={busy} onClick={() => void download()}>
          {busy ? t("profile.data.preparing") : t("profile.data.download")}
        </button>
      </div>
    </div>
  );
}
