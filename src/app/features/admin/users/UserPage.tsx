import { useTranslation } from "react-i18next";
import { Link, useParams } from "react-router";
import type { UserDetail } from "../../../../shared/admin-users";
import { formatDDMMYY } from "../../../../shared/dates";
import { formatUsPhone } from "../../../../shared/phone";
import { PageHead } from "../../../components/ui/PageHead";
import { USERS_NS } from "../../../i18n/admin-users";
import { usePageTitle } from "../../../lib/page-title";
import { useSession } from "../../../lib/session";
import { formatDateTime } from "../format";
import { AccessSection } from "./AccessSection";
import { AuditSection, InvitationsSection, MessagesSection } from "./ActivitySections";
import { useUser } from "./api";
import { EngineSection } from "./EngineSection";
import { EraseSection } from "./EraseSection";
import { OptOutsSection } from "./OptOutsSection";
import { ProfileSection } from "./ProfileSection";
import { ResellerSection } from "./ResellerSection";
import { ServiceTimeSection } from "./ServiceTimeSection";
import { UserLoadError } from "./UserLoadError";
import "../lists.css";
import "./users.css";

/** /admin/users/:id: everything about one account, and what an administrator may change (each change audited). */
export default function UserPage() {
  const { t } = useTranslation(USERS_NS);
  const id = useParams().id ?? "";
  const user = useUser(id);
  const me = useSession().user;
  const billing = Boolean(me?.role?.properties.billingDetails);
  const isOwner = me?.role?.name === "owner";
  usePageTitle(user.data?.user.name);
  const back = { to: "/admin/users", label: t("backToUsers") };

  if (user.error && !user.data) return <UserLoadError user={user} back={back} />;
  if (!user.data) {
    return (
      <div className="loading-block" role="status">
        <span className="spinner" aria-hidden="true" />
        <span>{t("loading")}</span>
      </div>
    );
  }
  const u = user.data.user;
  // An administrator's account is the owner's to change (the server refuses anyone else).
  const mayChange = !u.isAdmin || isOwner;
  // Nobody decides their own reseller application, nor their account's in the other app (same phone).
  const own = me !== null && me !== undefined && (me.id === u.id || me.phoneNumber === u.phone);
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
        {!mayChange && (
          <p className="notice" role="note">
            {t("adminAccount")}
          </p>
        )}
        <Facts user={u} billing={billing} />
        {!u.isAdmin && <EngineSection key={u.id} user={u} billing={billing && mayChange} />}
        {billing && mayChange && <ServiceTimeSection user={u} onChanged={() => saved()} />}
        {mayChange && <ProfileSection user={u} onSaved={saved} />}
        {mayChange && <OptOutsSection key={`${u.optOuts.sms.optedOut}-${u.optOuts.whatsapp.optedOut}`} user={u} onSaved={saved} />}
        <AccessSection user={u} mayChange={mayChange} onChanged={saved} />
        <ResellerSection user={u} billing={billing} own={own} onChanged={() => saved()} />
        <InvitationsSection userId={id} />
        <MessagesSection userId={id} />
        <AuditSection userId={id} />
        <EraseSection user={u} onErased={() => saved()} />
      </div>
    </section>
  );
}

/** What is known of the account; the referral code and the Connect account only with billingDetails. */
function Facts({ user: u, billing }: { user: UserDetail; billing: boolean }) {
  const { t } = useTranslation(USERS_NS);
  const yes = (v: boolean) => (v ? t("yes") : t("no"));
  const facts: [string, string][] = [
    [t("facts.email"), u.email ?? "—"],
    [t(u.app === "flex" ? "columns.region" : "columns.deliveryArea"), u.region ?? "—"],
    ...(billing ? ([[t("columns.referral"), u.referral ?? "—"]] as [string, string][]) : []),
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
    ...(billing ? ([[t("facts.connectAccount"), u.stripeExpressId ?? "—"]] as [string, string][]) : []),
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
