import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import "../../i18n/admin";
import { DriversPanel } from "./DriversPanel";
import { InvitationsPanel } from "./InvitationsPanel";
import "./notifications.css";

/** /admin/notifications: the two bulk-messaging panels, side by side (stacked on small screens). */
export default function NotificationsPage() {
  const { t } = useTranslation("admin");
  return (
    <section className="notifications">
      <div className="page-head">
        <Link to="/admin" className="back-link">
          ← {t("actions.goBack")}
        </Link>
        <Link to="/admin/campaigns">{t("campaigns.link")}</Link>
      </div>
      <h1>{t("notifications.title")}</h1>
      <div className="panels">
        <DriversPanel />
        <InvitationsPanel />
      </div>
    </section>
  );
}
