import { Outlet } from "react-router";

export function GeneralLayout() {
  return (
    <main id="main" tabIndex={-1} className="page">
      <Outlet />
    </main>
  );
}
