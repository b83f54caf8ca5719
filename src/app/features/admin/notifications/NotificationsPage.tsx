import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { PageHead } from "../../../components/ui/PageHead";
import "../../../i18n/admin";
import { DriversPanel } from "./DriversPanel";
import { InvitationsPanel } from "./InvitationsPanel";
import "./notifications.css";

/** /admin/notifications: the two bulk-messaging panels, side by side (stacked on small screens). */
export default function NotificationsPage() {
  const { t } = useTranslation("admin");
  return (
    <section className="notifications">
      <PageHead back={{ to: "/admin", label: t("actions.goBack") }} title={t("notifications.title")}>
        <Link to="/admin/campaigns">{t("campaigns.link")}</Link>
      </PageHead>
      <div className="panels">
        <DriversPanel />
        <InvitationsPanel />
      </div>
    </section>
  );
}
