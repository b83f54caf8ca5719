import { type ReactNode, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useParams } from "react-router";
import { formatUsPhone } from "../../../../shared/phone";
import { PageHead } from "../../../components/ui/PageHead";
import { USERS_NS } from "../../../i18n/admin-users";
import { usePageTitle } from "../../../lib/page-title";
import { openActingFor, type UserView, useUser } from "./api";
import { UserLoadError } from "./UserLoadError";
import "../lists.css";
import "./users.css";

export type ActingForView = "dashboard" | "insights";

/**
 * The screen's opening, recorded by the server once per opening (docs/admin.md, "Acting for"): sent
 * when the driver is known, before any of their data is read; "Try again" sends another. The
 * screen's own reads and polling come after it and record nothing.
 */
function useOpening(driverId: number | null, view: ActingForView) {
  const [attempt, setAttempt] = useState(0);
  const [settled, setSettled] = useState<{ key: string; ok: boolean } | null>(null);
  const sent = useRef<string | null>(null);
  const key = driverId === null ? null : `${driverId}:${view}:${attempt}`;
  useEffect(() => {
    if (driverId === null || key === null || sent.current === key) return;
    sent.current = key;
    openActingFor(driverId, view).then(
      () => setSettled({ key, ok: true }),
      () => setSettled({ key, ok: false }),
    );
  }, [driverId, view, key]);
  const status = settled?.key === key ? (settled.ok ? "open" : "failed") : "opening";
  return { status, retry: () => setAttempt((n) => n + 1) } as const;
}

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
  const opening = useOpening(u && !u.isAdmin ? u.id : null, view);
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
      {opening.status === "open" ? (
        children(u)
      ) : opening.status === "opening" ? (
        <div className="loading-block" role="status">
          <span className="spinner" aria-hidden="true" />
          <span>{t("loading")}</span>
        </div>
      ) : (
        <div className="alert" role="alert">
          <p>{t("actingFor.openFailed", { name: u.name })}</p>
          <button type="button" className="button button-secondary" onClick={opening.retry}>
            {t("retry")}
          </button>
        </div>
      )}
    </section>
  );
}
