import { useTranslation } from "react-i18next";
import { Link, useParams } from "react-router";
import type { UserDetail } from "../../../../shared/admin-users";
import { formatDDMMYY } from "../../../../shared/dates";
import { formatUsPhone } from "../../../../shared/phone";
import { PageHead } from "../../../components/ui/PageHead";
import { USERS_NS } from "../../../i18n/admin-users";
import { ApiClientError } from "../../../lib/api-client";
import { usePageTitle } from "../../../lib/page-title";
import { useSession } from "../../../lib/session";
import { formatDateTime } from "../format";
import { AccessSection } from "./AccessSection";
import { AuditSection, InvitationsSection, MessagesSection } from "./ActivitySections";
import { useUser } from "./api";
import { OptOutsSection } from "./OptOutsSection";
import { ProfileSection } from "./ProfileSection";
import { ResellerSection } from "./ResellerSection";
import { ServiceTimeSection } from "./ServiceTimeSection";
import "../lists.css";
import "./users.css";

/** /admin/users/:id: everything about one account, and what an administrator may change (each change audited). */
export default function UserPage() {
  const { t } = useTranslation(USERS_NS);
  const id = useParams().id ?? "";
  const user = useUser(id);
  const billing = Boolean(useSession().user?.role?.properties.billingDetails);
  usePageTitle(user.data?.user.name);
  const back = { to: "/admin/users", label: t("backToUsers") };

  if (user.error && !user.data) {
    const missing = user.error instanceof ApiClientError && (user.error.status === 404 || user.error.status === 400);
    return (
      <section>
        <PageHead back={back} title={missing ? t("notFound") : t("title")} />
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
  if (!user.data) {
    return (
      <div className="loading-block" role="status">
        <span className="spinner" aria-hidden="true" />
        <span>{t("loading")}</span>
      </div>
    );
  }
  const u = user.data.user;
  const saved = (next?: UserDetail) => void (next ? user.mutate({ user: next }, { revalidate: false }) : user.mutate());
  return (
    <section className="user-page">
      <PageHead back={back} title={u.name}>
        <Link to={`/admin/users/${u.id}/dashboard`}>{t("openDashboard")}</Link>
      </PageHead>
      <p className="user-head">
        <span>{formatUsPhone(u.phone) || u.phone}</span>
        <span className="badge-role">{u.isAdmin ? (u.roleName ?? t("roles.admins")) : u.reseller ? t("reseller") : t("driver")}</span>
        <span className="muted">{u.app === "flex" ? "Flex" : "Spark"}</span>
      </p>
      <div className="user-sections">
        <Facts user={u} />
        {billing && <ServiceTimeSection user={u} onChanged={() => saved()} />}
        <ProfileSection user={u} onSaved={saved} />
        <OptOutsSection key={`${u.optOuts.sms.optedOut}-${u.optOuts.whatsapp.optedOut}`} user={u} onSaved={saved} />
        <AccessSection user={u} onChanged={saved} />
        <ResellerSection user={u} canDecide={billing} onChanged={() => saved()} />
        <InvitationsSection userId={id} />
        <MessagesSection userId={id} />
        <AuditSection userId={id} />
      </div>
    </section>
  );
}

function Facts({ user: u }: { user: UserDetail }) {
  const { t } = useTranslation(USERS_NS);
  const yes = (v: boolean) => (v ? t("yes") : t("no"));
  const facts: [string, string][] = [
    [t("facts.email"), u.email ?? "—"],
    [t(u.app === "flex" ? "columns.region" : "columns.deliveryArea"), u.region ?? "—"],
    [t("columns.referral"), u.referral ?? "—"],
    [t("facts.inviteCode"), u.inviteCode],
    [t("profile.language"), u.language === "es" ? "Español" : "English"],
    [t("columns.created"), formatDateTime(u.createdAt)],
    [t("facts.lastSignIn"), u.lastSignInAt ? formatDateTime(u.lastSignInAt) : "—"],
    [t("facts.phoneVerified"), yes(u.phoneVerified)],
    [t("columns.goodStanding"), yes(u.goodStanding)],
    [t("columns.expiration"), formatDDMMYY(u.expirationAt) ?? t("none")],
    [t("columns.accountConnected"), yes(u.accountConnected)],
    [t("columns.setupComplete"), yes(u.setupComplete)],
    [t("columns.system"), u.status === "start" ? t("system.on") : t("system.off")],
    [t("facts.connectAccount"), u.stripeExpressId ?? "—"],
    [t("facts.liveSessions"), String(u.liveSessions)],
  ];
  return (
    <section className="user-section" aria-labelledby="facts-heading">
      <h2 id="facts-heading">{t("facts.title")}</h2>
      <dl className="facts">
        {facts.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
