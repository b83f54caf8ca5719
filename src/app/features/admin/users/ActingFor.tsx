import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Link, useParams } from "react-router";
import { formatUsPhone } from "../../../../shared/phone";
import { PageHead } from "../../../components/ui/PageHead";
import { USERS_NS } from "../../../i18n/admin-users";
import { usePageTitle } from "../../../lib/page-title";
import { type UserView, useUser } from "./api";
import { UserLoadError } from "./UserLoadError";
import "../lists.css";
import "./users.css";

export type ActingForView = "dashboard" | "insights";

/**
 * The frame of a driver's screens as an administrator sees them ("acting for", docs/admin.md):
 * the user read by the route's :id, its loading and error views, the page's heading and the
 * banner that says whose screens these are, with the way between them and back to the user.
 */
export function ActingFor({ view, children }: { view: ActingForView; children: (user: UserView) => ReactNode }) {
  const { t } = useTranslation(USERS_NS);
  const id = useParams().id ?? "";
  const user = useUser(id);
  const u = user.data?.user;
  const title = (name: string) => t(view === "dashboard" ? "actingFor.title" : "actingFor.insightsTitle", { name });
  usePageTitle(u ? title(u.name) : null);
  const back = { to: `/admin/users/${id}`, label: t("actingFor.backToUser") };

  if (user.error && !user.data) return <UserLoadError user={user} back={{ to: "/admin/users", label: t("backToUsers") }} />;
  if (!u) {
    return (
      <div className="loading-block" role="status">
        <span className="spinner" aria-hidden="true" />
        <span>{t("loading")}</span>
      </div>
    );
  }
  if (u.isAdmin) {
    return (
      <section>
        <PageHead back={back} title={t("actingFor.notDriver")} />
        <p className="alert">{t("actingFor.notDriverHelp")}</p>
      </section>
    );
  }

  const phone = formatUsPhone(u.phone) || u.phone;
  const views: { view: ActingForView; to: string; label: string }[] = [
    { view: "dashboard", to: `/admin/users/${u.id}/dashboard`, label: t("actingFor.dashboardTab") },
    { view: "insights", to: `/admin/users/${u.id}/insights`, label: t("actingFor.insightsTab") },
  ];
  return (
    <section className={`driver-page acting-for ${view === "dashboard" ? "driver-dashboard" : "driver-insights"}`}>
      <PageHead back={back} title={title(u.name)} />
      <div className="acting-banner" role="note" aria-label={t("actingFor.banner", { name: u.name, phone })}>
        <p>
          <strong>{t("actingFor.banner", { name: u.name, phone })}</strong>
        </p>
        <p>{t(view === "dashboard" ? "actingFor.bannerHelp" : "actingFor.insightsHelp")}</p>
        <nav className="acting-views" aria-label={t("actingFor.views", { name: u.name })}>
          {views.map((v) => (
            <Link key={v.view} className="acting-view-link" to={v.to} aria-current={v.view === view ? "page" : undefined}>
              {v.label}
            </Link>
          ))}
          <Link className="acting-view-link" to={`/admin/users/${u.id}`}>
            {t("actingFor.backToUser")}
          </Link>
        </nav>
      </div>
      {children(u)}
    </section>
  );
}
