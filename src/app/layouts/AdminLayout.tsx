import { useState } from "react";
import { useTranslation } from "react-i18next";
import { NavLink, Outlet, useLocation, useMatches } from "react-router";
import { useSession } from "../lib/session";
import "./admin-layout.css";

export type AdminPageHandle = { title: string };

/** Every admin page, in the order of the sidebar. `billing` only for roles with billingDetails. */
const PAGES = [
  { to: "/admin", key: "titles.admin", end: true },
  { to: "/admin/notifications", key: "titles.adminNotifications" },
  { to: "/admin/campaigns", key: "titles.adminCampaigns" },
  { to: "/admin/tools", key: "titles.adminTools" },
  { to: "/admin/users", key: "titles.adminUsers" },
  { to: "/admin/billing", key: "titles.adminBilling", billing: true },
  { to: "/admin/invitations", key: "titles.adminInvitations" },
  { to: "/admin/leads", key: "titles.adminLeads" },
  { to: "/admin/audit", key: "titles.adminAudit" },
] as const;

/**
 * The admin console's frame: a sidebar of every admin page on wide screens, a menu button on
 * phones, the current page marked (RootLayout names the tab after the route). The content is narrower on
 * /admin itself and wider on the sub-pages (docs/product.md, layouts). Loaded with the admin
 * routes, never on the landing route.
 */
export function AdminLayout() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const matches = useMatches();
  const { user } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  const isIndex = pathname.replace(/\/+$/, "") === "/admin";
  const billing = Boolean(user?.role?.properties.billingDetails);
  const pages = PAGES.filter((p) => !("billing" in p) || billing);
  const handle = [...matches].reverse().find((m) => (m.handle as AdminPageHandle | undefined)?.title)?.handle as AdminPageHandle | undefined;
  const title = handle ? t(handle.title) : t("titles.admin");

  return (
    <div className="admin-shell">
      <nav className="admin-nav" aria-label={t("adminNav.label")}>
        <button type="button" className="admin-nav-toggle" aria-expanded={menuOpen} aria-controls="admin-nav-list" onClick={() => setMenuOpen((open) => !open)}>
          <span aria-hidden="true">☰</span> {t("adminNav.menu")}: <strong>{title}</strong>
        </button>
        <ul id="admin-nav-list" className={menuOpen ? "admin-nav-list open" : "admin-nav-list"}>
          {pages.map((page) => (
            <li key={page.to}>
              {/* Following a link closes the phone menu. */}
              <NavLink to={page.to} end={"end" in page} onClick={() => setMenuOpen(false)}>
                {t(page.key)}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1} className={isIndex ? "page admin-main page-admin" : "page admin-main page-admin-wide"}>
        <Outlet />
      </main>
    </div>
  );
}
