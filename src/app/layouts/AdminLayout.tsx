import { Outlet, useLocation } from "react-router";

/** Narrower on /admin itself, wider on its sub-pages (spec §2). */
export function AdminLayout() {
  const { pathname } = useLocation();
  const isIndex = pathname.replace(/\/+$/, "") === "/admin";
  return (
    <main id="main" tabIndex={-1} className={isIndex ? "page page-admin" : "page page-admin-wide"}>
      <Outlet />
    </main>
  );
}
