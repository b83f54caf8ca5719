import type { RouteObject } from "react-router";
import { AdminLayout } from "./layouts/AdminLayout";
import { AuthLayout } from "./layouts/AuthLayout";
import { NotFoundPage } from "./layouts/ErrorPage";
import { GeneralLayout } from "./layouts/GeneralLayout";
import { lazyPage } from "./lib/lazy-page";
import type { GuardLevel } from "./routing/post-sign-in";

/**
 * The route table of every page but the landing page (docs/design-system.md, "Routes"). It loads
 * on the first navigation away from "/" (router.tsx patches it in), so none of it weighs on the
 * landing route. Add pages here; every page is lazy and has a `handle.title`.
 */

/**
 * A pathless layout route that applies the post-sign-in routing of its level to its children
 * (src/app/routing). The guard's code loads with the first page that needs it.
 */
function guarded(level: GuardLevel, children: RouteObject[]): RouteObject {
  return { lazy: lazyPage(() => import("./routing/Guard").then(({ Guard }) => ({ default: () => <Guard level={level} /> }))), children };
}

export const pageRoutes: RouteObject[] = [
  {
    element: <AuthLayout />,
    children: [
      guarded("guest", [
        { path: "login", lazy: lazyPage(() => import("./features/auth/LoginPage")), handle: { title: "titles.login" } },
        { path: "register", lazy: lazyPage(() => import("./features/auth/RegisterPage")), handle: { title: "titles.register" } },
        { path: "forgot-password", lazy: lazyPage(() => import("./features/auth/ForgotPasswordPage")), handle: { title: "titles.forgotPassword" } },
      ]),
      guarded("confirm", [
        { path: "confirm-account", lazy: lazyPage(() => import("./features/auth/ConfirmAccountPage")), handle: { title: "titles.confirmAccount" } },
      ]),
    ],
  },
  {
    path: "admin",
    // Administrators only: anyone else signed in is told they have no access.
    lazy: lazyPage(() =>
      import("./routing/Guard").then(({ Guard }) => ({
        default: () => (
          <Guard level="admin">
            <AdminLayout />
          </Guard>
        ),
      })),
    ),
    children: [
      { index: true, lazy: lazyPage(() => import("./features/admin/dashboard/DashboardPage")), handle: { title: "titles.admin" } },
      { path: "users", lazy: lazyPage(() => import("./features/admin/users/UsersPage")), handle: { title: "titles.adminUsers" } },
      { path: "users/:id", lazy: lazyPage(() => import("./features/admin/users/UserPage")), handle: { title: "titles.adminUser" } },
      {
        path: "users/:id/dashboard",
        // The driver's own dashboard inside the admin's "acting for" page: features never import each other, so they meet here.
        lazy: lazyPage(() =>
          Promise.all([import("./features/admin/users/UserDashboardPage"), import("./features/driver/DashboardPage")]).then(([page, driver]) => ({
            default: () => <page.default Dashboard={driver.DriverDashboard} />,
          })),
        ),
        handle: { title: "titles.adminUserDashboard" },
      },
      {
        path: "users/:id/insights",
        // The driver's insights, read-only, in the same frame.
        lazy: lazyPage(() =>
          Promise.all([import("./features/admin/users/UserInsightsPage"), import("./features/driver/InsightsPage")]).then(([page, driver]) => ({
            default: () => <page.default Insights={driver.DriverInsights} />,
          })),
        ),
        handle: { title: "insights:titles.adminUserInsights" },
      },
      { path: "tools", lazy: lazyPage(() => import("./features/admin/tools/ToolsPage")), handle: { title: "titles.adminTools" } },
      { path: "billing", lazy: lazyPage(() => import("./features/admin/billing/BillingPage")), handle: { title: "titles.adminBilling" } },
      { path: "invitations", lazy: lazyPage(() => import("./features/admin/invitations/InvitationsPage")), handle: { title: "titles.adminInvitations" } },
      {
        path: "notifications",
        lazy: lazyPage(() => import("./features/admin/notifications/NotificationsPage")),
        handle: { title: "titles.adminNotifications" },
      },
      { path: "campaigns", lazy: lazyPage(() => import("./features/admin/campaigns/CampaignsPage")), handle: { title: "titles.adminCampaigns" } },
      { path: "campaigns/:id", lazy: lazyPage(() => import("./features/admin/campaigns/CampaignPage")), handle: { title: "titles.adminCampaign" } },
      { path: "leads", lazy: lazyPage(() => import("./features/admin/leads/LeadsPage")), handle: { title: "titles.adminLeads" } },
      { path: "audit", lazy: lazyPage(() => import("./features/admin/audit/AuditPage")), handle: { title: "titles.adminAudit" } },
    ],
  },
  {
    element: <GeneralLayout />,
    children: [
      // Open to everyone, signed in or not.
      { path: "faqs", lazy: lazyPage(() => import("./features/site/FaqsPage")), handle: { title: "titles.faqs" } },
      { path: "terms", lazy: lazyPage(() => import("./features/site/LegalPage").then((m) => ({ default: m.TermsPage }))), handle: { title: "titles.terms" } },
      {
        path: "privacy",
        lazy: lazyPage(() => import("./features/site/LegalPage").then((m) => ({ default: m.PrivacyPage }))),
        handle: { title: "titles.privacy" },
      },
      { path: "contact", lazy: lazyPage(() => import("./features/site/ContactPage")), handle: { title: "titles.contact" } },
      // The embedded payments provider's pages (PAYMENTS_PROVIDER = "local"), open like Stripe's hosted ones.
      {
        path: "local-stripe/checkout/:id",
        lazy: lazyPage(() => import("./embedded-payments/LocalCheckoutPage")),
        handle: { title: "billing:titles.localCheckout" },
      },
      {
        path: "local-stripe/onboarding/:id",
        lazy: lazyPage(() => import("./embedded-payments/LocalOnboardingPage")),
        handle: { title: "billing:titles.localOnboarding" },
      },
      // The optional-redirect screens: a session with a confirmed phone is enough.
      guarded("signedIn", [
        { path: "payment", lazy: lazyPage(() => import("./features/billing/PaymentPage")), handle: { title: "titles.payment" } },
        { path: "profile", lazy: lazyPage(() => import("./features/profile/ProfilePage")), handle: { title: "titles.profile" } },
        { path: "profile/edit", lazy: lazyPage(() => import("./features/profile/ProfileEditPage")), handle: { title: "titles.profileEdit" } },
        {
          path: "profile/password",
          lazy: lazyPage(() => import("./features/profile/ProfilePasswordPage")),
          handle: { title: "titles.profilePassword" },
        },
        { path: "flex/login", lazy: lazyPage(() => import("./features/driver/ConnectPage")), handle: { title: "titles.flexLogin" } },
        { path: "flex/confirm", lazy: lazyPage(() => import("./features/driver/ApprovalPage")), handle: { title: "titles.flexConfirm" } },
        { path: "flex/otp", lazy: lazyPage(() => import("./features/driver/CodePage")), handle: { title: "titles.flexOtp" } },
        // Inviting friends and reselling need no platform account: a reseller may not drive at all.
        { path: "flex/invite", lazy: lazyPage(() => import("./features/billing/InvitePage")), handle: { title: "titles.flexInvite" } },
        { path: "flex/invite/:phoneNumber", lazy: lazyPage(() => import("./features/billing/InvitePage")), handle: { title: "titles.flexInvite" } },
        { path: "flex/reseller", lazy: lazyPage(() => import("./features/billing/reseller/ResellerPage")), handle: { title: "titles.flexReseller" } },
        // Another driver's calendar: for administrators and resellers, who need no platform account of their own (the server decides who may).
        { path: "flex/calendar/:phoneNumber", lazy: lazyPage(() => import("./features/driver/CalendarPage")), handle: { title: "titles.flexCalendar" } },
      ]),
      guarded("settings", [
        { path: "flex/settings", lazy: lazyPage(() => import("./features/driver/SettingsPage")), handle: { title: "titles.flexSettings" } },
      ]),
      // The driver's screens follow the whole post-sign-in routing.
      guarded("full", [
        { path: "flex/dashboard", lazy: lazyPage(() => import("./features/driver/DashboardPage")), handle: { title: "titles.flexDashboard" } },
        { path: "flex/calendar", lazy: lazyPage(() => import("./features/driver/CalendarPage")), handle: { title: "titles.flexCalendar" } },
        {
          path: "flex/insights",
          lazy: lazyPage(() => import("./features/driver/InsightsPage")),
          handle: { title: "insights:titles.flexInsights", lead: "insights:lead" },
        },
      ]),
    ],
  },
  // Any other address: "page not found", inside the frame.
  { path: "*", element: <NotFoundPage />, handle: { title: "errors.pageNotFound" } },
];
