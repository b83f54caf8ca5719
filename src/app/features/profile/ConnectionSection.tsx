import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import useSWR from "swr";
import { useConfirm } from "../../components/ui/Dialog";
import { StatusView } from "../../components/ui/StatusView";
import { toast } from "../../components/ui/Toast";
import { useSession } from "../../lib/session";
import { profileApi } from "./api";
import "../../i18n/driver";

/** The profile's delivery-account section: who is connected, and Disconnect (after a confirm). */
export function ConnectionSection() {
  const { t } = useTranslation("driver");
  const { user, reloadUser } = useSession();
  const connection = useSWR(["profile/connection"], () => profileApi.connection());
  const [confirm, confirmDialog] = useConfirm();
  const platform = t(`platform.${user?.app ?? "flex"}`);

  const disconnect = async () => {
    const ok = await confirm({
      title: t("profile.disconnectTitle"),
      message: t("profile.disconnectMessage", { platform }),
      confirmLabel: t("profile.disconnect"),
      tone: "danger",
    });
    if (!ok) return;
    try {
      await profileApi.disconnect();
      toast.success(t("profile.disconnected"));
      await Promise.all([connection.mutate(), reloadUser()]);
    } catch (err) {
      toast.error(err instanceof Error ? err.message : t("common:errors.generic"));
    }
  };

  return (
    <div className="profile-section">
      {confirmDialog}
      <h2>{t("profile.connection")}</h2>
      {connection.error ? (
        <StatusView kind="error" compact onRetry={() => void connection.mutate()} />
      ) : !connection.data ? (
        <StatusView kind="loading" compact />
      ) : connection.data.connected ? (
        <>
          <p>{connection.data.accountName ? t("profile.connectedAs", { name: connection.data.accountName }) : t("profile.connectedUnnamed")}</p>
          <div className="actions">
            <button type="button" className="button button-danger" onClick={() => void disconnect()}>
              {t("profile.disconnect")}
            </button>
          </div>
        </>
      ) : (
        <>
          <p className="muted">{t("profile.notConnected")}</p>
          <div className="actions">
            <Link className="button" to="/flex/login">
              {t("profile.connect")}
            </Link>
          </div>
        </>
      )}
    </div>
  );
}
