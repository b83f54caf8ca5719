import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { UserDetail } from "../../../../shared/admin-users";
import { setLanguage } from "../../../i18n";
import { mockApi, renderScreen, support, supportWithBilling } from "../../../test/admin-harness";
import UserPage from "./UserPage";

const detail = (over: Partial<UserDetail> = {}): UserDetail => ({
  id: 7,
  app: "flex",
  name: "Diego Driver",
  phone: "+13055550102",
  email: "diego@example.com",
  region: "Miami",
  humanRegion: "Miami",
  deliveryArea: null,
  referral: "MIAMI10",
  phoneVerified: true,
  goodStanding: true,
  accountConnected: true,
  setupComplete: true,
  status: "start",
  expirationAt: Date.UTC(2031, 2, 9, 12),
  createdAt: Date.UTC(2031, 0, 2, 12),
  lastSignInAt: null,
  isAdmin: false,
  roleName: null,
  roleBillingDetails: false,
  reseller: false,
  stripeExpressId: null,
  language: "es",
  inviteCode: "DIEGO7",
  mfaMethod: "totp",
  optOuts: { sms: { optedOut: true, keyword: "STOP", at: Date.UTC(2031, 1, 1) }, whatsapp: { optedOut: false, keyword: null, at: null } },
  liveSessions: 1,
  resellerState: null,
  ...over,
});
const empty = { total: 0, page: 1, pageSize: 20, rows: [] };

function stub(user = detail()) {
  let current = user;
  const save = (next: UserDetail) => {
    current = next;
    return { body: { user: current } };
  };
  return mockApi([
    { path: "/api/admin/users/7", reply: () => ({ body: { user: current } }) },
    {
      method: "PATCH",
      path: "/api/admin/users/7",
      reply: (call) => {
        current = { ...current, ...(call.body as Partial<UserDetail>) };
        return { body: { user: current } };
      },
    },
    {
      path: "/api/admin/users/7/sessions",
      reply: () => ({ body: { total: 1, page: 1, pageSize: 20, rows: [{ id: "abc123", startedAt: 1, lastUsedAt: 2, expiresAt: 3, totp: false }] } }),
    },
    { method: "POST", path: "/api/admin/users/7/sign-out", reply: () => ({ body: { sessions: 1 } }) },
    { method: "POST", path: "/api/admin/users/7/reset-totp", reply: () => save({ ...current, mfaMethod: "none" }) },
    {
      method: "PUT",
      path: "/api/admin/users/7/role",
      reply: (call) => save({ ...current, isAdmin: true, roleName: (call.body as { roleName: string }).roleName }),
    },
    {
      method: "PUT",
      path: "/api/admin/users/7/opt-outs",
      reply: () => save({ ...current, optOuts: { ...current.optOuts, whatsapp: { optedOut: true, keyword: "ADMIN", at: 5 } } }),
    },
    {
      path: "/api/admin/users/7/messages",
      reply: () => ({
        body: {
          total: 1,
          page: 1,
          pageSize: 20,
          rows: [
            {
              id: 1,
              campaignId: 9,
              channel: "sms",
              text: "Renew today",
              template: null,
              status: "delivered",
              errorCode: null,
              at: new Date(2031, 2, 4, 8, 15).getTime(),
            },
          ],
        },
      }),
    },
    {
      path: "/api/admin/users/7/audit",
      reply: () => ({
        body: {
          total: 1,
          page: 1,
          pageSize: 20,
          rows: [
            {
              id: 1,
              at: new Date(2031, 2, 5, 16, 45).getTime(),
              actorId: 1,
              actorName: "Olivia Owner",
              action: "admin.user_updated",
              target: "user:7",
              details: { reason: "x" },
            },
          ],
        },
      }),
    },
    { path: "/api/admin/invitations", reply: () => ({ body: empty }) },
    {
      path: "/api/admin/billing/users/7/service-time",
      reply: () => ({
        body: {
          total: 1,
          page: 1,
          pageSize: 20,
          rows: [
            {
              id: 1,
              kind: "payment",
              deltaMs: 604_800_000,
              days: 7,
              expirationBefore: null,
              expirationAfter: Date.UTC(2031, 2, 9, 12),
              paymentId: 12,
              invitationId: null,
              reason: null,
              actor: null,
              createdAt: 1,
            },
          ],
        },
      }),
    },
    { method: "POST", path: "/api/admin/billing/users/7/service-time", reply: () => ({ status: 201, body: { entry: {} } }) },
    { method: "POST", path: "/api/admin/billing/resellers/7/approve", reply: () => ({ body: { reseller: {} } }) },
  ]);
}

const at = "/admin/users/7";
const route = "/admin/users/:id";

beforeEach(async () => {
  await setLanguage("en");
});
afterEach(() => vi.unstubAllGlobals());

describe("user page", () => {
  it("shows the account, its messages and its audit trail, and names the tab after the user", async () => {
    const api = stub();
    renderScreen(<UserPage />, { path: at, route });
    expect(await screen.findByRole("heading", { name: "Diego Driver", level: 1 })).toBeInTheDocument();
    const facts = screen.getByRole("region", { name: "Account" });
    expect(within(facts).getByText("Invite code").nextSibling).toHaveTextContent("DIEGO7");
    expect(await screen.findByText("Renew today")).toBeInTheDocument();
    expect(await screen.findByText("admin.user_updated")).toBeInTheDocument();
    // Dates as the console writes them everywhere: DD/MM/YY, with the time where it matters.
    expect(within(facts).getByText("Created").nextSibling).toHaveTextContent(/^02\/01\/31 \d\d:\d\d$/);
    expect(screen.getByText("Renew today").closest("tr")).toHaveTextContent("04/03/31 08:15");
    expect(screen.getByText("admin.user_updated").closest("tr")).toHaveTextContent("05/03/31 16:45");
    expect(screen.getByText("No invitations.")).toBeInTheDocument();
    expect(screen.getByText("Has not applied to the reseller programme.")).toBeInTheDocument();
    expect(api.to("/api/admin/invitations")[0]!.url.searchParams.get("inviter")).toBe("7");
    expect(screen.getByRole("link", { name: "Their dashboard" })).toHaveAttribute("href", "/admin/users/7/dashboard");
  });

  it("saves the profile and refuses a bad email before asking", async () => {
    const user = userEvent.setup();
    const api = stub();
    renderScreen(<UserPage />, { path: at, route });
    const name = await screen.findByLabelText("Name");
    await user.clear(name);
    await user.type(name, "Diego D.");
    const email = screen.getByLabelText("Email");
    await user.clear(email);
    await user.type(email, "nope");
    const profile = screen.getByRole("region", { name: "Profile" });
    await user.click(within(profile).getByRole("button", { name: "Save" }));
    expect(await screen.findByText("Enter a valid email.")).toBeInTheDocument();
    expect(api.to("/api/admin/users/7", "PATCH")).toHaveLength(0);
    await user.clear(email);
    await user.click(within(profile).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(api.to("/api/admin/users/7", "PATCH")).toHaveLength(1));
    expect(api.to("/api/admin/users/7", "PATCH")[0]!.body).toEqual({ name: "Diego D.", email: "", language: "es", region: "Miami" });
    expect(await screen.findByRole("heading", { name: "Diego D.", level: 1 })).toBeInTheDocument();
  });

  it("signs the user out everywhere after a confirm that asks why", async () => {
    const user = userEvent.setup();
    const api = stub();
    renderScreen(<UserPage />, { path: at, route });
    await screen.findByText("…abc123");
    await user.click(screen.getByRole("button", { name: "Sign out everywhere" }));
    const dialog = await screen.findByRole("dialog", { name: "Sign out everywhere" });
    await user.click(within(dialog).getByRole("button", { name: "Sign out everywhere" }));
    expect(within(dialog).getByRole("alert")).toHaveTextContent("Say why, in a few words.");
    expect(api.to("/api/admin/users/7/sign-out", "POST")).toHaveLength(0);
    await user.type(within(dialog).getByLabelText(/Reason/), "Lost phone");
    await user.click(within(dialog).getByRole("button", { name: "Sign out everywhere" }));
    await waitFor(() => expect(api.to("/api/admin/users/7/sign-out", "POST")[0]?.body).toEqual({ reason: "Lost phone" }));
    expect(await screen.findByText("Signed out of 1 session.")).toBeInTheDocument();
  });

  it("lets the owner reset the authenticator and change the role", async () => {
    const user = userEvent.setup();
    const api = stub();
    renderScreen(<UserPage />, { path: at, route });
    await user.click(await screen.findByRole("button", { name: "Reset authenticator" }));
    const dialog = await screen.findByRole("dialog", { name: "Reset authenticator" });
    await user.type(within(dialog).getByLabelText(/Reason/), "New phone");
    await user.click(within(dialog).getByRole("button", { name: "Reset authenticator" }));
    expect(await screen.findByText("The authenticator was reset.")).toBeInTheDocument();
    expect(api.to("/api/admin/users/7/reset-totp", "POST")[0]!.body).toEqual({ reason: "New phone" });

    await user.click(screen.getByRole("checkbox", { name: "Administrator" }));
    expect(screen.getByText(/must set up an authenticator/)).toBeInTheDocument();
    await user.clear(screen.getByLabelText("Role name"));
    await user.type(screen.getByLabelText("Role name"), "support");
    await user.click(screen.getByRole("button", { name: "Save role" }));
    await waitFor(() => expect(api.to("/api/admin/users/7/role", "PUT")[0]?.body).toEqual({ isAdmin: true, roleName: "support", billingDetails: false }));
    expect(await screen.findByText("Role saved.")).toBeInTheDocument();
  });

  it("extends or reduces service time by whole days with a reason, and lists the ledger", async () => {
    const user = userEvent.setup();
    const api = stub();
    renderScreen(<UserPage />, { path: at, route });
    const section = await screen.findByRole("region", { name: "Service time" });
    expect(await within(section).findByText("Payment")).toBeInTheDocument();
    expect(within(section).getByText("+7")).toBeInTheDocument();
    await user.type(within(section).getByLabelText(/Days to add/), "3");
    await user.click(within(section).getByRole("button", { name: "Change service time" }));
    expect(within(section).getByText("Say why, in a few words.")).toBeInTheDocument();
    expect(api.to("/api/admin/billing/users/7/service-time", "POST")).toHaveLength(0);
    await user.type(within(section).getByLabelText(/Reason/), "Outage on Monday");
    await user.click(within(section).getByRole("button", { name: "Change service time" }));
    await waitFor(() => expect(api.to("/api/admin/billing/users/7/service-time", "POST")[0]?.body).toEqual({ days: 3, reason: "Outage on Monday" }));
    expect(await within(section).findByText("Extended by 3 days.")).toBeInTheDocument();
  });

  it("refuses zero or more than a year of days, and the message clears once the cause is fixed", async () => {
    const user = userEvent.setup();
    const api = stub();
    renderScreen(<UserPage />, { path: at, route });
    const section = await screen.findByRole("region", { name: "Service time" });
    const days = within(section).getByLabelText(/Days to add/);
    await user.type(days, "0");
    await user.type(within(section).getByLabelText(/Reason/), "Outage");
    await user.click(within(section).getByRole("button", { name: "Change service time" }));
    expect(days).toHaveAttribute("aria-invalid", "true");
    await user.clear(days);
    await user.type(days, "400");
    expect(days).toHaveAttribute("aria-invalid", "true");
    await user.clear(days);
    await user.type(days, "-2");
    expect(days).not.toHaveAttribute("aria-invalid");
    expect(api.to("/api/admin/billing/users/7/service-time", "POST")).toHaveLength(0);
    await user.click(within(section).getByRole("button", { name: "Change service time" }));
    await waitFor(() => expect(api.to("/api/admin/billing/users/7/service-time", "POST")[0]?.body).toEqual({ days: -2, reason: "Outage" }));
    expect(await within(section).findByText("Reduced by 2 days.")).toBeInTheDocument();
  });

  it("lets a billing admin approve a reseller application from the user's page", async () => {
    const user = userEvent.setup();
    const api = stub(detail({ resellerState: { status: "applied", referralCode: null, commissionPercent: 0 } }));
    renderScreen(<UserPage />, { path: at, route });
    expect(await screen.findByText("Applied to resell; waiting for a decision.")).toBeInTheDocument();
    await user.click(within(screen.getByRole("region", { name: "Reseller" })).getByRole("button", { name: "Approve" }));
    const dialog = await screen.findByRole("dialog", { name: "Approve Diego Driver as a reseller?" });
    await user.click(within(dialog).getByRole("button", { name: "Approve" }));
    await waitFor(() => expect(api.to("/api/admin/billing/resellers/7/approve", "POST")).toHaveLength(1));
  });

  it("keeps the owner's controls from a support admin", async () => {
    stub();
    renderScreen(<UserPage />, { path: at, route, user: support });
    await screen.findByRole("heading", { name: "Diego Driver", level: 1 });
    expect(screen.queryByRole("button", { name: "Reset authenticator" })).toBeNull();
    expect(screen.queryByRole("checkbox", { name: "Administrator" })).toBeNull();
    expect(screen.getByRole("button", { name: "Sign out everywhere" })).toBeInTheDocument();
    // Service time is billing information.
    expect(screen.queryByRole("region", { name: "Service time" })).toBeNull();
  });

  it("leaves an administrator's account to the owner, and billing facts to billing admins", async () => {
    const admin = { isAdmin: true, roleName: "owner", referral: undefined, stripeExpressId: undefined };
    stub(detail(admin));
    renderScreen(<UserPage />, { path: at, route, user: support });
    await screen.findByRole("heading", { name: "Diego Driver", level: 1 });
    expect(screen.getByRole("note")).toHaveTextContent("Only the owner may change an administrator's account.");
    expect(screen.queryByRole("button", { name: "Sign out everywhere" })).toBeNull();
    expect(screen.queryByRole("region", { name: "Profile" })).toBeNull();
    expect(screen.queryByRole("checkbox", { name: /Opted out of SMS/ })).toBeNull();
    const facts = screen.getByRole("region", { name: "Account" });
    expect(within(facts).queryByText("Referral")).toBeNull();
    expect(within(facts).queryByText("Connect account")).toBeNull();
  });

  it("gives the owner an administrator's account to change", async () => {
    stub(detail({ isAdmin: true, roleName: "support" }));
    renderScreen(<UserPage />, { path: at, route });
    await screen.findByRole("heading", { name: "Diego Driver", level: 1 });
    expect(screen.queryByRole("note")).toBeNull();
    expect(screen.getByRole("button", { name: "Sign out everywhere" })).toBeInTheDocument();
    expect(within(screen.getByRole("region", { name: "Account" })).getByText("Referral").nextSibling).toHaveTextContent("MIAMI10");
  });

  it("does not offer anyone to decide their own reseller application", async () => {
    stub(detail({ resellerState: { status: "applied", referralCode: null, commissionPercent: 20 } }));
    renderScreen(<UserPage />, { path: at, route, user: { ...supportWithBilling, id: 99, phoneNumber: "+13055550102" } });
    expect(await screen.findByText("This is your own application: another administrator decides.")).toBeInTheDocument();
    expect(within(screen.getByRole("region", { name: "Reseller" })).queryByRole("button", { name: "Approve" })).toBeNull();
  });

  it("sets opt-outs per channel", async () => {
    const user = userEvent.setup();
    const api = stub();
    renderScreen(<UserPage />, { path: at, route });
    const sms = await screen.findByRole("checkbox", { name: /Opted out of SMS/ });
    expect(sms).toBeChecked();
    expect(screen.getByText(/STOP,/)).toBeInTheDocument();
    await user.click(screen.getByRole("checkbox", { name: /Opted out of WhatsApp/ }));
    await user.click(within(screen.getByRole("region", { name: "Opt-outs" })).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(api.to("/api/admin/users/7/opt-outs", "PUT")[0]?.body).toEqual({ sms: true, whatsapp: true }));
  });

  it("says when there is no such user", async () => {
    mockApi([{ path: "/api/admin/users/7", reply: () => ({ status: 404, body: { error: { code: "not_found", message: "No such user" } } }) }]);
    renderScreen(<UserPage />, { path: at, route });
    expect(await screen.findByRole("heading", { name: "User not found" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: /Users/ })).toHaveAttribute("href", "/admin/users");
  });

  it("speaks Spanish", async () => {
    await setLanguage("es");
    stub();
    renderScreen(<UserPage />, { path: at, route });
    expect(await screen.findByRole("heading", { name: "Mensajes recibidos" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Cerrar sesión en todas partes" })).toBeInTheDocument();
  });
});
