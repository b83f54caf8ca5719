import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { formatUsPhone } from "../../../shared/phone";
import { Badge } from "../../components/ui/Badge";
import { Splash } from "../../components/ui/Splash";
import { useSession } from "../../lib/session";
import { ConnectionSection } from "./ConnectionSection";
import { DataSection } from "./DataSection";
import { DeleteAccountSection } from "./DeleteAccountSection";
import { NotificationsSection } from "./NotificationsSection";
import "./profile.css";
import "../../i18n/auth";

/** /profile: the signed-in user, with links to edit it and to change the password. */
export default function ProfilePage() {
  const { t } = useTranslation("auth");
  const { user, signOut } = useSession();
  const [signingOut, setSigningOut] = useState(false);
  // The route's guard waits for the user; this only covers a render in between.
  if (!user) return <Splash inline />;

  const yesNo = (value: boolean) => (value ? t("profile.yes") : t("profile.no"));
  const rows: [string, string][] = [
    [t("fields.name"), user.name],
    [t("fields.phone"), formatUsPhone(user.phoneNumber) || user.phoneNumber],
    [t("fields.email"), user.email || t("profile.notSet")],
    [t("fields.app"), t(`apps.${user.app}`)],
    [t("fields.language"), t(`languages.${user.language}`)],
    [t("profile.expiration"), user.expirationDate ?? t("profile.none")],
    [t("profile.goodStanding"), yesNo(user.goodStanding)],
    [t("profile.accountConnected"), yesNo(user.accountConnected)],
  ];
  if (user.referral) rows.push([t("fields.referralCode"), user.referral]);
  if (user.mfaMethod !== "none") rows.push([t("profile.twoStep"), t(`profile.mfa.${user.mfaMethod}`)]);

  const end = async (global: boolean) => {
    setSigningOut(true);
    await signOut({ global });
  };

  return (
    <section className="profile">
      <h1>
        {t("common:titles.profile")}
        {user.isAdmin && <Badge tone="brand">{t("profile.admin")}</Badge>}
      </h1>
      <dl className="profile-list">
        {rows.map(([label, value]) => (
          <div key={label} style={{ display: "contents" }}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <div className="actions">
        <Link className="button" to="/profile/edit">
          {t("profile.edit")}
        </Link>
        <Link className="button button-secondary" to="/profile/password">
          {t("common:titles.profilePassword")}
        </Link>
      </div>
      {!user.isAdmin && <ConnectionSection />}
      {!user.isAdmin && <NotificationsSection />}
      <div className="profile-section">
        <h2>{t("profile.sessions")}</h2>
        <p className="muted">{t("profile.sessionsLead")}</p>
        <div className="actions">
          <button type="button" className="button button-secondary" disabled={signingOut} onClick={() => void end(false)}>
            {t("common:menu.signOut")}
          </button>
          <button type="button" className="button button-danger" disabled={signingOut} onClick={() => void end(true)}>
            {t("profile.signOutEverywhere")}
          </button>
        </div>
      </div>
      <DataSection />
      {!user.isAdmin && <DeleteAccountSection />}
    </section>
  );
}
