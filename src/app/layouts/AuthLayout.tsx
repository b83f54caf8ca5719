import { Outlet } from "react-router";

export function AuthLayout() {
  return (
    <main className="page page-narrow">
      <div className="card">
        <Outlet />
      </div>
    </main>
  );
}
