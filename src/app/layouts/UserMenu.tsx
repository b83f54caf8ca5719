import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { Icon } from "../components/ui/Icon";
import { MenuButton, type MenuItem } from "../components/ui/Menu";
import { useSession } from "../lib/session";

/**
 * The signed-in part of the top bar: on wide screens a menu button with the user's name; in the
 * phone panel the name, then the same entries as plain links and buttons.
 */
export default function UserMenu() {
  const { t } = useTranslation();
  const { user, signOut } = useSession();
  if (!user) return null;
  const items: MenuItem[] = [
    ...(user.isAdmin ? [{ label: t("menu.admin"), icon: "layout-dashboard", to: "/admin" } as const] : []),
    { label: t("menu.profile"), icon: "user", to: "/profile" },
    { label: t("menu.signOut"), icon: "log-out", onSelect: () => void signOut() },
  ];
  // An account whose phone its owner took back from someone who registered it has no name until they give one (docs/security.md).
  const shown = user.name || user.phoneNumber;
  return (
    <>
      <MenuButton
        className="topbar-desktop-only"
        button={
          <>
            <Icon name="user" />
            <span className="menu-button-label">{shown}</span>
          </>
        }
        buttonLabel={`${t("menu.account")}: ${shown}`}
        items={items}
      />
      <div className="topbar-panel-user">
        <span className="topbar-panel-name">{shown}</span>
        {user.isAdmin && <Link to="/admin">{t("menu.admin")}</Link>}
        <Link to="/profile">{t("menu.profile")}</Link>
        <button type="button" className="link-button" onClick={() => void signOut()}>
          {t("menu.signOut")}
        </button>
      </div>
    </>
  );
}
