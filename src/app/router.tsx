import { createBrowserRouter, type RouteObject } from "react-router";
import { ErrorPage } from "./components/ui/ErrorPage";
import { Splash } from "./components/ui/Splash";
import { AdminLayout } from "./layouts/AdminLayout";
import { AuthLayout } from "./layouts/AuthLayout";
import { GeneralLayout } from "./layouts/GeneralLayout";
import { RootLayout } from "./layouts/RootLayout";
import { lazyPage } from "./lib/lazy-page";

const comingSoon = lazyPage(() => import("./features/pages/ComingSoonPage"));

/** A route whose page is not built yet: its title comes from the handle. */
function soon(path: string | undefined, title: string, index = false): RouteObject {
  return index ? { index: true, lazy: comingSoon, handle: { title } } : { path, lazy: comingSoon, handle: { title } };
}

/** The spec's route table (§2). Every page is loaded lazily. */
export const routes: RouteObject[] = [
  {
    path: "/",
    element: <RootLayout />,
    errorElement: <ErrorPage />,
    HydrateFallback: Splash,
    children: [
      { index: true, lazy: lazyPage(() => import("./features/home/HomePage")) },
      {
        element: <AuthLayout />,
        children: [
          soon("login", "titles.login"),
          soon("register", "titles.register"),
          soon("forgot-password", "titles.forgotPassword"),
          soon("confirm-account", "titles.confirmAccount"),
        ],
      },
      {
        path: "admin",
        element: <AdminLayout />,
        children: [
          soon(undefined, "titles.admin", true),
          soon("users", "titles.adminUsers"),
          soon("users/:id", "titles.adminUser"),
          soon("users/:id/dashboard", "titles.adminUserDashboard"),
          { path: "tools", lazy: lazyPage(() => import("./features/tools/ToolsPage")), handle: { title: "titles.adminTools" } },
          soon("billing", "titles.adminBilling"),
          soon("invitations", "titles.adminInvitations"),
          { path: "notifications", lazy: lazyPage(() => import("./features/notifications/NotificationsPage")), handle: { title: "titles.adminNotifications" } },
          { path: "campaigns", lazy: lazyPage(() => import("./features/campaigns/CampaignsPage")) },
          { path: "campaigns/:id", lazy: lazyPage(() => import("./features/campaigns/CampaignPage")) },
          soon("leads", "titles.adminLeads"),
        ],
      },
      {
        element: <GeneralLayout />,
        children: [
          soon("faqs", "titles.faqs"),
          soon("terms", "titles.terms"),
          soon("privacy", "titles.privacy"),
          soon("payment", "titles.payment"),
          soon("contact", "titles.contact"),
          soon("profile", "titles.profile"),
          soon("profile/edit", "titles.profileEdit"),
          soon("profile/password", "titles.profilePassword"),
          soon("flex/login", "titles.flexLogin"),
          soon("flex/confirm", "titles.flexConfirm"),
          soon("flex/otp", "titles.flexOtp"),
          soon("flex/settings", "titles.flexSettings"),
          soon("flex/dashboard", "titles.flexDashboard"),
          soon("flex/invite", "titles.flexInvite"),
          soon("flex/invite/:phoneNumber", "titles.flexInvite"),
          soon("flex/calendar", "titles.flexCalendar"),
          soon("flex/calendar/:phoneNumber", "titles.flexCalendar"),
          soon("flex/reseller", "titles.flexReseller"),
        ],
      },
    ],
  },
];

export function createRouter() {
  return createBrowserRouter(routes);
}
