import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { IdClaims } from "../../shared/auth";
import { setLanguage } from "../i18n";
import { type SessionValue, StaticSessionProvider, signedOutSession, type User } from "../lib/session";
import { patchRoutesOnNavigation, routes } from "../router";

const claims: IdClaims = { sub: "1", sid: "s1", phone_number: "+13055550100", phone_number_verified: true, app: "flex", is_admin: true, exp: 4_000_000_000 };
const admin = {
  id: 1,
  name: "Olivia Owner",
  phoneNumber: "+13055550100",
  isAdmin: true,
  phoneNumberVerified: true,
  role: { name: "owner", properties: { billingDetails: true } },
} as User;

function renderAt(path: string, user: Partial<User> = {}) {
  const value: SessionValue = { ...signedOutSession, claims, session: { idToken: "id", refreshToken: "r" }, user: { ...admin, ...user } };
  const router = createMemoryRouter(routes, { initialEntries: [path], patchRoutesOnNavigation });
  render(
    <StaticSessionProvider value={value}>
      <RouterProvider router={router} />
    </StaticSessionProvider>,
  );
  return router;
}

beforeEach(async () => {
  await setLanguage("en");
  // The pages behind the shell ask the API for their data; an empty answer keeps them quiet.
  vi.stubGlobal(
    "fetch",
    vi.fn(
      async () =>
        new Response(JSON.stringify({ error: { code: "not_found", message: "stub" } }), { status: 404, headers: { "Content-Type": "application/json" } }),
    ),
  );
});
afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
});

const PAGES = ["Admin dashboard", "Notifications", "Campaigns", "Tools", "Users", "Billing", "Invitations", "Leads", "Audit log"];

describe("admin shell", () => {
  it("links every admin page, marks the current one and names the tab after it", async () => {
    const router = renderAt("/admin/leads");
    const nav = await screen.findByRole("navigation", { name: "Admin pages" });
    const links = within(nav).getAllByRole("link");
    expect(links.map((l) => l.textContent)).toEqual(PAGES);
    expect(within(nav).getByRole("link", { name: "Leads" })).toHaveAttribute("aria-current", "page");
    expect(within(nav).getByRole("link", { name: "Admin dashboard" })).not.toHaveAttribute("aria-current");
    await waitFor(() => expect(document.title).toBe("Leads · Blockpilot"));

    await userEvent.setup().click(within(nav).getByRole("link", { name: "Audit log" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/admin/audit"));
    await waitFor(() => expect(within(nav).getByRole("link", { name: "Audit log" })).toHaveAttribute("aria-current", "page"));
    await waitFor(() => expect(document.title).toBe("Audit log · Blockpilot"));
  });

  it("leaves Billing out for a role without billingDetails", async () => {
    renderAt("/admin/users", { role: { name: "support", properties: { billingDetails: false } } });
    const nav = await screen.findByRole("navigation", { name: "Admin pages" });
    expect(within(nav).queryByRole("link", { name: "Billing" })).toBeNull();
    expect(within(nav).getAllByRole("link")).toHaveLength(PAGES.length - 1);
  });

  it("opens as a menu on phones: the button says where you are and toggles the list", async () => {
    const user = userEvent.setup();
    renderAt("/admin/tools");
    const toggle = await screen.findByRole("button", { name: /Menu: Tools/ });
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    await user.click(toggle);
    expect(toggle).toHaveAttribute("aria-expanded", "true");
    expect(document.getElementById("admin-nav-list")).toHaveClass("open");
    await user.click(screen.getByRole("link", { name: "Invitations" }));
    await waitFor(() => expect(screen.getByRole("button", { name: /Menu: Invitations/ })).toHaveAttribute("aria-expanded", "false"));
  });

  it("puts the console in the user menu, for administrators only", async () => {
    const user = userEvent.setup();
    renderAt("/admin/tools");
    await user.click(await screen.findByRole("button", { name: "Account: Olivia Owner" }));
    expect(await screen.findByRole("menuitem", { name: "Admin console" })).toHaveAttribute("href", "/admin");
    cleanup();
    renderAt("/profile", { isAdmin: false, role: null });
    await user.click(await screen.findByRole("button", { name: "Account: Olivia Owner" }));
    expect(await screen.findByRole("menuitem", { name: "My profile" })).toBeInTheDocument();
    expect(screen.queryByRole("menuitem", { name: "Admin console" })).toBeNull();
  });

  it("shows the admin pages in Spanish", async () => {
    await setLanguage("es");
    renderAt("/admin/audit");
    const nav = await screen.findByRole("navigation", { name: "Páginas de administración" });
    expect(within(nav).getByRole("link", { name: "Registro de auditoría" })).toHaveAttribute("aria-current", "page");
    await waitFor(() => expect(document.title).toBe("Registro de auditoría · Blockpilot"));
  });
});
