import { type ComponentType, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useParams } from "react-router";
import { formatUsPhone } from "../../../../shared/phone";
import { PageHead } from "../../../components/ui/PageHead";
import { USERS_NS } from "../../../i18n/admin-users";
import { ApiClientError } from "../../../lib/api-client";
import { usePageTitle } from "../../../lib/page-title";
import { setSystemFor, useUser } from "./api";
import { ReasonDialog } from "./ReasonDialog";
import "../lists.css";
import "./users.css";

/** The driver's dashboard (features/driver, DriverDashboard), handed in by the route table: features never import each other. */
export type DriverDashboardView = ComponentType<{
  app: "flex" | "spark";
  driverId: number;
  readOnly: boolean;
  calendarHref: string;
  onSwitch: (on: boolean) => Promise<void>;
}>;

/** Why the engine refused to start ("expired", "setup"…), when the server said. */
function refusal(err: unknown): string | null {
  const reason = err instanceof ApiClientError ? (err.details as { reason?: unknown } | undefined)?.reason : null;
  return typeof reason === "string" ? reason : null;
}

/**
 * /admin/users/:id/dashboard: the driver's dashboard as the driver sees it, for support ("acting
 * for", docs/admin.md). Read-only but for the system switch, which asks why and is audited.
 */
export default function UserDashboardPage({ Dashboard }: { Dashboard: DriverDashboardView }) {
  const { t } = useTranslation(USERS_NS);
  const id = useParams().id ?? "";
  const user = useUser(id);
  const u = user.data?.user;
  usePageTitle(u ? t("actingFor.title", { name: u.name }) : null);
  const back = { to: `/admin/users/${id}`, label: t("actingFor.backToUser") };
  // The switch waits on the dialog: it settles when the admin confirms (and the server agreed) or cancels.
  const [asking, setAsking] = useState<boolean | null>(null);
  const settle = useRef<() => void>(() => {});

  if (user.error && !user.data) {
    const missing = user.error instanceof ApiClientError && (user.error.status === 404 || user.error.status === 400);
    return (
      <section>
        <PageHead back={{ to: "/admin/users", label: t("backToUsers") }} title={missing ? t("notFound") : t("title")} />
        <div className="alert" role="alert">
          <p>{missing ? t("notFoundHelp") : t("error")}</p>
          {!missing && (
            <button type="button" className="button button-secondary" onClick={() => void user.mutate()}>
              {t("retry")}
            </button>
          )}
        </div>
      </section>
    );
  }
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
  const close = () => {
    setAsking(null);
    settle.current();
  };
  return (
    <section className="driver-page driver-dashboard acting-for">
      <PageHead back={back} title={t("actingFor.title", { name: u.name })} />
      <div className="acting-banner" role="note" aria-label={t("actingFor.banner", { name: u.name, phone })}>
        <p>
          <strong>{t("actingFor.banner", { name: u.name, phone })}</strong>
        </p>
        <p>{t("actingFor.bannerHelp")}</p>
        <Link to={`/admin/users/${u.id}`}>{t("actingFor.backToUser")}</Link>
      </div>
      <Dashboard
        app={u.app}
        driverId={u.id}
        readOnly
        calendarHref={`/flex/calendar/${encodeURIComponent(u.phone)}`}
        onSwitch={(on) =>
          new Promise<void>((resolve) => {
            settle.current = resolve;
            setAsking(on);
          })
        }
      />
      <ReasonDialog
        open={asking !== null}
        title={t(asking ? "actingFor.switchOnTitle" : "actingFor.switchOffTitle", { name: u.name })}
        description={t("actingFor.switchHelp")}
        confirmLabel={t(asking ? "actingFor.switchOn" : "actingFor.switchOff")}
        danger={asking === false}
        onCancel={close}
        onConfirm={async (reason) => {
          try {
            await setSystemFor(u.id, asking === true, reason);
          } catch (err) {
            // Why the system cannot start, in the driver's dashboard's own words.
            const why = refusal(err);
            throw new Error(why ? t(`driver:dashboard.stopped.${why}`) : err instanceof Error && err.message ? err.message : t("error"));
          }
          close();
        }}
      />
    </section>
  );
}
