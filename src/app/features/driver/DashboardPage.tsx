import type { TFunction } from "i18next";
import { memo, type ReactNode, useCallback, useDeferredValue, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import type { DriverFilters } from "../../../shared/driver-filters";
import { Pager, usePaging } from "../../components/ui/Pager";
import { StatusView } from "../../components/ui/StatusView";
import { toast } from "../../components/ui/Toast";
import { ApiClientError } from "../../lib/api-client";
import { useSession } from "../../lib/session";
import { driverApi, type OfferRow, type OfferStatus, useEngine, useOffers } from "./api";
import { blockRefusalKey, waitMessage } from "./connect-errors";
import { EngineNotices, engineWords } from "./EngineNotices";
import { useLiveDashboard } from "./live-dashboard";
import { OfferList } from "./OfferList";
import { Summaries } from "./Summaries";
import { clock, localeOf } from "./station-time";
import "./driver.css";
import "../../i18n/driver";

/** "Expires in 2 days", "Expires today", "Expired". */
function serviceWords(expiresAt: number | null, now: number, t: TFunction<"driver">, lang: string): string {
  if (expiresAt === null) return t("dashboard.noService");
  if (expiresAt <= now) return t("dashboard.expired");
  const days = Math.floor((expiresAt - now) / 86_400_000);
  if (days === 0 && new Date(expiresAt).toDateString() === new Date(now).toDateString()) return t("dashboard.expiresToday");
  const relative = new Intl.RelativeTimeFormat(localeOf(lang), { numeric: "auto" });
  return t("dashboard.expiresIn", {
    relative: days >= 1 ? relative.format(days, "day") : relative.format(Math.max(1, Math.round((expiresAt - now) / 3_600_000)), "hour"),
  });
}

/**
 * /flex/dashboard: the system switch and what it is doing, the service state, and every offer the
 * engine saw (won, disliked with its reasons in words, gone), updated live over a socket (by short
 * polling while it cannot open: live-dashboard.ts).
 * "I've arrived" on a won block near its start.
 */
export default function DashboardPage() {
  const { t } = useTranslation("driver");
  const { user } = useSession();
  // The driver's own dashboard is live over a socket (polling when it cannot be); the acting-for view polls.
  useLiveDashboard();
  const switchSystem = async (on: boolean) => {
    try {
      await driverApi.setSystem(on);
    } catch (err) {
      toast.error(err instanceof ApiClientError ? err.message : t("common:errors.generic"));
    }
  };
  return (
    <section className="driver-page driver-dashboard">
      <h1>{t("common:titles.flexDashboard")}</h1>
      <DriverDashboard app={user?.app ?? "flex"} onSwitch={switchSystem} calendarHref="/flex/calendar" after={<Summaries />} />
    </section>
  );
}

type DriverDashboardProps = {
  app: "flex" | "spark";
  /** Whose dashboard: the signed-in driver's, or (an administrator "acting for" them) this driver's. */
  driverId?: number;
  /** What the switch does; the dashboard reads the engine again once it settles. */
  onSwitch: (on: boolean) => Promise<void>;
  calendarHref: string;
  /** Where the driver's insights are: their own page, or the administrator's view of them. */
  insightsHref?: string;
  /** What only the driver does (edit filters, renew, "I've arrived") is left out. */
  readOnly?: boolean;
  /** What comes below the offers (the driver's summaries): hidden with them until the engine's first answer, which would otherwise push it down on screen. */
  after?: ReactNode;
};

/** The system and service cards and the live offers: the driver's dashboard, theirs or seen by an administrator. */
export function DriverDashboard({ app, driverId, onSwitch, calendarHref, insightsHref = "/flex/insights", readOnly = false, after }: DriverDashboardProps) {
  const { t, i18n } = useTranslation("driver");
  const engine = useEngine(driverId);
  const [switching, setSwitching] = useState(false);

  const toggle = async (on: boolean) => {
    setSwitching(true);
    try {
      await onSwitch(on);
    } finally {
      await engine.mutate();
      setSwitching(false);
    }
  };

  const on = engine.data ? engine.data.engine.state !== "stopped" : false;
  // Until the engine's first answer, one loading view stands for the cards and the offers, which
  // are rendered (the offers read meanwhile) but hidden: the cards then show at their final size,
  // rather than growing and shrinking above offers already on screen (on a phone-sized page, a
  // layout shift scoring 0.14 of Lighthouse's 0.1 "good").
  const settled = engine.data !== undefined || engine.error !== undefined;

  return (
    <>
      {!settled && <StatusView kind="loading" />}
      <div className="dashboard-body" hidden={!settled}>
        <div className="dashboard-cards">
          <div className="card dashboard-system">
            <h2>{t("dashboard.system")}</h2>
            {engine.error ? (
              <StatusView kind="error" compact onRetry={() => void engine.mutate()} />
            ) : (
              engine.data && (
                <>
                  <button
                    type="button"
                    role="switch"
                    aria-checked={on}
                    className={`system-switch${on ? " is-on" : ""}`}
                    disabled={switching}
                    onClick={() => void toggle(!on)}
                  >
                    <span className="system-switch-track" aria-hidden="true">
                      <span className="system-switch-thumb" />
                    </span>
                    <span>
                      {t("dashboard.switchLabel")}: <strong>{on ? t("dashboard.on") : t("dashboard.off")}</strong>
                    </span>
                  </button>
                  <p className="system-words" aria-live="polite">
                    {engineWords(engine.data.engine, app, t, i18n.language)}
                  </p>
                  {engine.data.engine.state === "searching" && engine.data.engine.slowedUntil && (
                    <p className="muted">
                      {t("dashboard.slowed", { time: clock(engine.data.engine.slowedUntil, engine.data.engine.timeZone, i18n.language) })}
                    </p>
                  )}
                  <EngineNotices engine={engine.data.engine} app={app} readOnly={readOnly} onChanged={() => engine.mutate()} />
                  <div className="actions">
                    {!readOnly && <Link to="/flex/settings">{t("dashboard.editFilters")}</Link>}
                    <Link to={calendarHref}>{t("dashboard.calendar")}</Link>
                    <Link to={insightsHref}>{t("dashboard.insights")}</Link>
                  </div>
                </>
              )
            )}
          </div>
          <div className="card dashboard-service">
            <h2>{t("dashboard.service")}</h2>
            {engine.error ? (
              <StatusView kind="error" compact onRetry={() => void engine.mutate()} />
            ) : (
              engine.data && (
                <p>
                  <strong>{serviceWords(engine.data.service.expiresAt, engine.data.now, t, i18n.language)}</strong>
                </p>
              )
            )}
            {!readOnly && (
              <Link className="button button-secondary button-small" to="/payment">
                {t("dashboard.renew")}
              </Link>
            )}
          </div>
        </div>
        <Offers systemOn={on} driverId={driverId} readOnly={readOnly} />
        {after}
      </div>
    </>
  );
}

/**
 * The live offers. Memoised: the engine card above re-renders when the engine's answer changes,
 * and the table (a formatted date and sums on every row) re-renders only for its own answers.
 */
const Offers = memo(function Offers({ systemOn, driverId, readOnly }: { systemOn: boolean; driverId: number | undefined; readOnly: boolean }) {
  const { t, i18n } = useTranslation("driver");
  const [status, setStatus] = useState<OfferStatus | undefined>(undefined);
  const { page, pageSize, restart, pager } = usePaging();
  const offers = useOffers({ page, pageSize, ...(status ? { status } : {}) }, driverId);

  const { mutate } = offers;
  const arrive = useCallback(
    async (row: OfferRow) => {
      try {
        await driverApi.arrive(row.id);
        toast.success(t("dashboard.arrivedSaved"));
        await mutate();
      } catch (err) {
        const wait = waitMessage(err);
        const refusal = blockRefusalKey(err);
        toast.error(refusal ? t(refusal) : wait ? t(wait.key, wait.values) : err instanceof ApiClientError ? err.message : t("common:errors.generic"));
      }
    },
    [mutate, t],
  );

  const tabs: (OfferStatus | undefined)[] = [undefined, "won", "disliked", "gone"];
  const data = offers.data;
  // The rows render from a deferred copy: React renders new rows in a transition, in slices between
  // which the browser stays responsive, instead of one long task (a page of rows with their
  // station-local times and reasons takes well over 50 ms on a slow phone). The tabs' counts come
  // with them: shown first, they made the tabs wrap and moved the loading view below (a layout shift).
  const shown = useDeferredValue(data);

  return (
    <div className="card dashboard-offers">
      <div className="card-header">
        <h2>{t("dashboard.offers")}</h2>
        <span className="muted">{t("dashboard.live")}</span>
      </div>
      <fieldset className="offer-tabs">
        <legend className="visually-hidden">{t("dashboard.offers")}</legend>
        {tabs.map((tab) => (
          <button
            key={tab ?? "all"}
            type="button"
            className={`button button-small ${status === tab ? "" : "button-secondary"}`}
            aria-pressed={status === tab}
            onClick={() => {
              setStatus(tab);
              restart();
            }}
          >
            {t(`dashboard.tabs.${tab ?? "all"}`)}
            {shown && ` (${tab ? shown.counts[tab] : shown.counts.won + shown.counts.disliked + shown.counts.gone})`}
          </button>
        ))}
      </fieldset>
      {offers.error && !data ? (
        <StatusView kind="error" message={t("common:errors.couldntLoadOffers")} onRetry={() => void offers.mutate()} />
      ) : !shown ? (
        <StatusView kind="loading" />
      ) : shown.rows.length === 0 ? (
        <StatusView kind="empty" title={status ? t("dashboard.emptyFiltered", { status: t(`dashboard.tabs.${status}`) }) : t("dashboard.emptyAll")} />
      ) : (
        <>
          {/* Busy while another page or tab loads (the rows shown are the last one's), not on each
              poll: reading isValidating would also re-render the whole table twice every 3 s. */}
          <OfferList
            rows={shown.rows}
            filters={shown.filters as DriverFilters | null}
            systemOn={systemOn}
            onArrive={readOnly ? null : arrive}
            lang={i18n.language}
            busy={offers.isLoading}
          />
          <Pager
            {...pager}
            total={shown.total}
            labels={{
              rowsPerPage: t("pager.rowsPerPage"),
              previous: t("pager.previous"),
              next: t("pager.next"),
              page: (p, pages) => t("pager.page", { page: p, pages }),
            }}
          />
        </>
      )}
    </div>
  );
});
