import { Outlet } from "react-router";

export function AuthLayout() {
  return (
    <main id="main" tabIndex={-1} className="page page-narrow">
      <div className="card">
        <Outlet />
      </div>
    </main>
  );
}
