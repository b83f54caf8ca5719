import { DASHBOARD_READS } from "./features/driver/dashboard-reads";
import { startEarlyReads } from "./lib/early-reads";
import { hasStoredSession, USER_PATH } from "./lib/session";

/**
 * What a signed-in page opened directly can start as soon as the entry runs, instead of one after
 * another: the entry, then the route table (router.tsx patches it in), then the route's guard and
 * page chunks, then the user, and only then the page's reads. Each download or request started here
 * is the same one the app makes later (the module loader and the typed client hand it over), so
 * nothing is fetched twice. Only the driver's dashboard, the page drivers keep open, does its reads
 * early; its address is routes.tsx's.
 */
export const DASHBOARD_PATH = "/flex/dashboard";

const ignore = () => {};

export function startEarly(pathname: string) {
  // Signed-out visits (every pre-rendered page) start nothing.
  if (!hasStoredSession()) return;
  const dashboard = pathname === DASHBOARD_PATH;
  if (dashboard) startEarlyReads([USER_PATH, ...DASHBOARD_READS]);
  // The code in the next task (before the router's, main.tsx): asking for a chunk adds a <link> to
  // the page for each file it needs, tens of them, which would lengthen the entry's own task.
  setTimeout(() => {
    // The live session's code, which SessionProvider would only ask for after the first render.
    void import("./lib/session-live").catch(ignore);
    // The route's chunks, with the route table rather than after it.
    if (dashboard) {
      void import("./features/routing/Guard").catch(ignore);
      void import("./features/driver/DashboardPage").catch(ignore);
    }
  });
}
