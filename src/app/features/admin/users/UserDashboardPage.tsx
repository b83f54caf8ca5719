import { type ComponentType, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { USERS_NS } from "../../../i18n/admin-users";
import { ApiClientError } from "../../../lib/api-client";
import { ActingFor } from "./ActingFor";
import { setSystemFor } from "./api";
import { ReasonDialog } from "./ReasonDialog";

/** The driver's dashboard (features/driver, DriverDashboard), handed in by the route table: features never import each other. */
export type DriverDashboardView = ComponentType<{
  app: "flex" | "spark";
  driverId: number;
  readOnly: boolean;
  calendarHref: string;
  insightsHref: string;
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
  // The switch waits on the dialog: it settles when the admin confirms (and the server agreed) or cancels.
  const [asking, setAsking] = useState<boolean | null>(null);
  const settle = useRef<() => void>(() => {});
  const close = () => {
    setAsking(null);
    settle.current();
  };

  return (
    <ActingFor view="dashboard">
      {(u) => (
        <>
          <Dashboard
            app={u.app}
            driverId={u.id}
            readOnly
            calendarHref={`/flex/calendar/${encodeURIComponent(u.phone)}`}
            insightsHref={`/admin/users/${u.id}/insights`}
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
        </>
      )}
    </ActingFor>
  );
}
