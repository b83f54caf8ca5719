import { Outlet } from "react-router";

export function GeneralLayout() {
  return (
    <main className="page">
      <Outlet />
    </main>
  );
}
