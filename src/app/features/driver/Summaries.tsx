import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import useSWR from "swr";
import { Badge, type BadgeTone } from "../../components/ui/Badge";
import { StatusView } from "../../components/ui/StatusView";
import { api, unwrap } from "../../lib/api-client";
import { money } from "./format";
import { localeOf } from "./station-time";

const TONES: Record<string, BadgeTone> = { processing: "info", successful: "success", failed: "danger", refunded: "warning" };

/**
 * The dashboard's payments and invitations: the latest payments with their days of service and
 * refunds, and how the driver's invitations stand (from the payments feature's API).
 */
export function Summaries() {
  const { t, i18n } = useTranslation("driver");
  const lang = i18n.language;
  const payments = useSWR(["driver/summaries/payments"], () => unwrap(api.payments.$get({ query: { page: "1", pageSize: "20" } })));
  const invitations = useSWR(["driver/summaries/invitations"], () => unwrap(api.invitations.$get({ query: { page: "1", pageSize: "20" } })));
  const date = (ms: number) => new Intl.DateTimeFormat(localeOf(lang), { month: "short", day: "numeric" }).format(ms);

  return (
    <div className="card dashboard-summaries">
      <h2>{t("summaries.title")}</h2>
      <h3>{t("summaries.payments")}</h3>
      {payments.error ? (
        <StatusView kind="error" compact onRetry={() => void payments.mutate()} />
      ) : !payments.data ? (
        <StatusView kind="loading" compact />
      ) : payments.data.rows.length === 0 ? (
        <p className="muted">{t("summaries.noPayments")}</p>
      ) : (
        <ul className="summary-list">
          {payments.data.rows.slice(0, 3).map((p) => (
            <li key={p.id}>
              {t("summaries.payment", { date: date(p.createdAt), days: p.days, amount: money(p.amountCents, lang) })}{" "}
              <Badge tone={TONES[p.status] ?? "neutral"}>{t(`summaries.status.${p.status}`)}</Badge>
              {p.refundedCents > 0 && <span className="muted"> {t("summaries.refunded", { amount: money(p.refundedCents, lang) })}</span>}
            </li>
          ))}
        </ul>
      )}
      <h3>{t("summaries.invitations")}</h3>
      {invitations.error ? (
        <StatusView kind="error" compact message={t("common:errors.couldntLoadInvitations")} onRetry={() => void invitations.mutate()} />
      ) : !invitations.data ? (
        <StatusView kind="loading" compact />
      ) : (
        <p>
          {t("summaries.invitationCounts", {
            total: invitations.data.total,
            registered: invitations.data.summary.registered,
            paid: invitations.data.summary.paid,
            freeWeeks: invitations.data.summary.freeWeeksEarned,
          })}
        </p>
      )}
      <div className="actions">
        <Link to="/payment">{t("summaries.pay")}</Link>
        <Link to="/flex/invite">{t("summaries.invite")}</Link>
      </div>
    </div>
  );
}
