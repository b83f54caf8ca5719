import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, NavLink, useLocation } from "react-router";
import { LanguageToggle } from "../components/ui/LanguageToggle";
import { Logo } from "../components/ui/Logo";
import { useSession } from "../lib/session";

const links = [
  { to: "/flex/dashboard", key: "nav.home" },
  { to: "/faqs", key: "nav.faqs" },
  { to: "/contact", key: "nav.contact" },
  { to: "/terms", key: "nav.terms" },
] as const;

export function TopBar() {
  const { t } = useTranslation();
  const { user, signOut } = useSession();
  const [panelOpen, setPanelOpen] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();

  // Navigating closes the small-screen panel and the user menu.
  useEffect(() => {
    setPanelOpen(false);
    setMenuOpen(false);
  }, [location.pathname]);

  return (
    <header className="topbar">
      <Link to="/" className="topbar-logo" aria-label="Blockpilot">
        <Logo />
        <span>{t("appName")}</span>
      </Link>
      <button
        type="button"
        className="topbar-burger"
        aria-expanded={panelOpen}
        aria-controls="topbar-panel"
        aria-label={panelOpen ? t("menu.close") : t("menu.open")}
        onClick={() => setPanelOpen((open) => !open)}
      >
        <span aria-hidden="true">☰</span>
      </button>
      <div id="topbar-panel" className={panelOpen ? "topbar-panel open" : "topbar-panel"}>
        <nav aria-label={t("nav.main")}>
          {links.map((link) => (
            <NavLink key={link.to} to={link.to}>
              {t(link.key)}
            </NavLink>
          ))}
        </nav>
        <LanguageToggle />
        {user && (
          <div className="user-menu" onKeyDown={(e) => e.key === "Escape" && setMenuOpen(false)}>
            <button type="button" className="user-menu-button" aria-haspopup="menu" aria-expanded={menuOpen} onClick={() => setMenuOpen((o) => !o)}>
              {user.name}
            </button>
            <div role="menu" className={menuOpen ? "user-menu-items open" : "user-menu-items"} aria-label={t("menu.account")}>
              <span className="user-menu-name">{user.name}</span>
              {user.isAdmin && (
                <Link role="menuitem" to="/admin">
                  {t("menu.admin")}
                </Link>
              )}
              <Link role="menuitem" to="/profile">
                {t("menu.profile")}
              </Link>
              <button role="menuitem" type="button" onClick={() => void signOut()}>
                {t("menu.signOut")}
              </button>
            </div>
          </div>
        )}
      </div>
    </header>
  );
}
