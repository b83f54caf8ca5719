import { lazy, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, NavLink, useLocation } from "react-router";
import { HydrationBoundary } from "../boot/hydration";
import { Icon } from "../components/ui/Icon";
import { LanguageToggle } from "../components/ui/LanguageToggle";
import { Logo } from "../components/ui/Logo";
import { useSession } from "../lib/session";

// The user menu exists only for signed-in people: its code stays off the landing route.
const UserMenu = lazy(() => import("./UserMenu"));

/**
 * The top bar: logo, the four links, the language toggle and the user menu (or Sign in). On
 * phones the links and the rest fold into a panel that drops over the page; the bar keeps one
 * height in every state so nothing below it moves.
 */
export function TopBar() {
  const { t } = useTranslation();
  const { user, loading } = useSession();
  const [panelOpen, setPanelOpen] = useState(false);
  const { pathname } = useLocation();
  const burger = useRef<HTMLButtonElement>(null);

  // Navigating closes the phone panel (adjusted while rendering, not in an effect).
  const [panelPath, setPanelPath] = useState(pathname);
  if (panelPath !== pathname) {
    setPanelPath(pathname);
    setPanelOpen(false);
  }

  const links = [
    // Signed out, "Home" is the landing page: the dashboard would only send the visitor back to it.
    { to: user ? "/flex/dashboard" : "/", label: t("nav.home") },
    { to: "/faqs", label: t("nav.faqs") },
    { to: "/contact", label: t("nav.contact") },
    { to: "/terms", label: t("nav.terms") },
  ];

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Esc anywhere in the bar closes the phone panel and returns to its button.
    <header
      className="topbar"
      onKeyDown={(event) => {
        if (event.key === "Escape" && panelOpen) {
          setPanelOpen(false);
          burger.current?.focus();
        }
      }}
    >
      <div className="topbar-inner">
        <Link to="/" className="topbar-logo">
          <Logo />
          <span>{t("appName")}</span>
        </Link>
        <button
          ref={burger}
          type="button"
          className="icon-button topbar-burger"
          aria-expanded={panelOpen}
          aria-controls="topbar-panel"
          aria-label={panelOpen ? t("menu.close") : t("menu.open")}
          onClick={() => setPanelOpen((open) => !open)}
        >
          <Icon name={panelOpen ? "x" : "menu"} />
        </button>
        <div id="topbar-panel" className={panelOpen ? "topbar-panel open" : "topbar-panel"}>
          <nav className="topbar-nav" aria-label={t("nav.main")}>
            {links.map((link) => (
              <NavLink key={link.to} to={link.to} end>
                {link.label}
              </NavLink>
            ))}
          </nav>
          <div className="topbar-end">
            <LanguageToggle />
            <div className="topbar-user-slot">
              {user ? (
                <HydrationBoundary fallback={null}>
                  <UserMenu />
                </HydrationBoundary>
              ) : (
                !loading && (
                  <Link className="button button-small" to="/login">
                    {t("nav.signIn")}
                  </Link>
                )
              )}
            </div>
          </div>
        </div>
      </div>
    </header>
  );
}
