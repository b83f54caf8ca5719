import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { formatUsPhone } from "../../../shared/phone";
import { Badge, type BadgeTone } from "../../components/ui/Badge";
import { DataTable } from "../../components/ui/DataTable";
import { Pager, usePaging } from "../../components/ui/Pager";
import { StatusView } from "../../components/ui/StatusView";
import { type InvitationRow, type InvitationState, useInvitations } from "./api";
import { day, pagerLabels } from "./format";
import "../../i18n/billing";
import "./billing.css";

const TONES: Record<InvitationState, BadgeTone> = { invited: "neutral", registered: "info", paid: "brand", free_week: "success" };

/**
 * The driver's invitations: how many reached each state (invited → registered → paid → free week
 * earned) and the list (a dashboard piece; /flex/invite shows it in full).
 */
export function InvitationsCard({ compact = false }: { compact?: boolean }) {
  const { t } = useTranslation("billing");
  const paging = usePaging();
  const { data, error, isLoading, isValidating, mutate } = useInvitations(compact ? 1 : paging.page, compact ? 20 : paging.pageSize);
  const rows = compact ? (data?.rows.slice(0, 5) ?? []) : (data?.rows ?? []);

  return (
    <section className="card billing-card" aria-labelledby="invitations-card-title">
      <div className="card-header">
        <h2 id="invitations-card-title">{t("invitations.title")}</h2>
        {compact && <Link to="/flex/invite">{t("invitations.inviteMore")}</Link>}
      </div>
      {error ? (
        // The words docs/product.md keeps: "couldn't load invitations".
        <StatusView kind="error" compact title={t("invitations.loadError")} onRetry={() => void mutate()} />
      ) : isLoading || !data ? (
        <StatusView kind="loading" compact />
      ) : (
        <>
          <dl className="billing-totals">
            <div>
              <dt>{t("invitations.sent")}</dt>
              <dd>{data.total}</dd>
            </div>
            <div>
              <dt>{t("invitations.registered")}</dt>
              <dd>{data.summary.registered + data.summary.paid + data.summary.free_week}</dd>
            </div>
            <div>
              <dt>{t("invitations.freeWeeks")}</dt>
              <dd data-testid="free-weeks">{data.summary.freeWeeksEarned}</dd>
            </div>
          </dl>
          <DataTable<InvitationRow>
            caption={t("invitations.title")}
            busy={isValidating && !isLoading}
            rows={rows}
            rowKey={(r) => r.id}
            empty={t("invitations.empty")}
            columns={[
              { key: "phone", header: t("invitations.phone"), cell: (r) => formatUsPhone(r.phoneNumber) || r.phoneNumber },
              { key: "date", header: t("invitations.date"), cell: (r) => day(r.invitedAt) },
              { key: "state", header: t("invitations.state"), cell: (r) => <Badge tone={TONES[r.state]}>{t(`invitationState.${r.state}`)}</Badge> },
            ]}
          />
          {!compact && <Pager {...paging.pager} total={data.total} labels={pagerLabels(t)} />}
        </>
      )}
    </section>
  );
}
