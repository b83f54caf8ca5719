import { type KeyboardEvent, useState } from "react";
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

  // Navigating closes the small-screen panel and the user menu (state adjusted during render, as
  // React recommends for state that follows a changing value, rather than in an effect).
  const [shownPath, setShownPath] = useState(location.pathname);
  if (shownPath !== location.pathname) {
    setShownPath(location.pathname);
    setPanelOpen(false);
    setMenuOpen(false);
  }
  const closeOnEscape = (e: KeyboardEvent) => {
    if (e.key === "Escape") setMenuOpen(false);
  };

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
          <div className="user-menu">
            <button
              type="button"
              className="user-menu-button"
              aria-haspopup="menu"
              aria-expanded={menuOpen}
              onClick={() => setMenuOpen((o) => !o)}
              onKeyDown={closeOnEscape}
            >
              {user.name}
            </button>
            <div role="menu" className={menuOpen ? "user-menu-items open" : "user-menu-items"} aria-label={t("menu.account")} onKeyDown={closeOnEscape}>
              <span className="user-menu-name">{user.name}</span>
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
