import { Outlet } from "react-router";
import { HydrationBoundary } from "../boot/hydration";
import { lazyPart } from "../boot/lazy-part";

const AppNotices = lazyPart("app-notices", () => import("./AppNotices"));

export function GeneralLayout() {
  return (
    <main id="main" tabIndex={-1} className="page">
      <HydrationBoundary fallback={null}>
        <AppNotices />
      </HydrationBoundary>
      <Outlet />
    </main>
  );
}
