import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { UserListRow } from "../../../../shared/admin-users";
import { setLanguage } from "../../../i18n";
import { mockApi, renderScreen, support } from "../../../test/admin-harness";
import UsersPage from "./UsersPage";

const row = (over: Partial<UserListRow>): UserListRow => ({
  id: 1,
  app: "flex",
  name: "Ana García",
  phone: "+13055551050",
  email: null,
  region: "Miami",
  referral: "MIAMI10",
  phoneVerified: true,
  goodStanding: true,
  accountConnected: true,
  setupComplete: false,
  status: "start",
  expirationAt: Date.UTC(2031, 2, 9, 12),
  createdAt: Date.UTC(2031, 0, 2, 12),
  lastSignInAt: null,
  isAdmin: false,
  roleName: null,
  reseller: false,
  ...over,
});

function stub(rows = [row({}), row({ id: 2, name: "Ben Stone", status: "stop", reseller: true })], total = rows.length) {
  return mockApi([
    { path: "/api/admin/users", reply: () => ({ body: { total, page: 1, pageSize: 20, rows } }) },
    { path: "/api/admin/regions", reply: () => ({ body: { Items: ["Miami", "Tampa"] } }) },
    { path: "/api/admin/users/export.csv", reply: () => ({ body: "id,name\r\n1,Ana\r\n" }) },
  ]);
}

const lastQuery = (api: ReturnType<typeof stub>) => api.to("/api/admin/users").at(-1)!.url.searchParams;

beforeEach(async () => {
  await setLanguage("en");
});
afterEach(() => vi.unstubAllGlobals());

describe("users page", () => {
  it("shows and sorts by referral code only for administrators with billingDetails", async () => {
    const api = stub([row({ referral: undefined })]);
    renderScreen(<UsersPage />, { path: "/admin/users?sort=referral&dir=asc", route: "/admin/users", user: support });
    await screen.findByRole("link", { name: "Ana García" });
    expect(screen.queryByRole("columnheader", { name: /Referral/ })).toBeNull();
    expect(screen.getByRole("searchbox", { name: "Search" })).toHaveAttribute("placeholder", "Name, phone or region");
    // A shared link sorted by referral asks the server for the default order instead of a refusal.
    expect(lastQuery(api).get("sort")).toBe("createdAt");
  });

  it("shows the referral column to administrators with billingDetails", async () => {
    stub();
    renderScreen(<UsersPage />, { path: "/admin/users" });
    expect(await screen.findByRole("columnheader", { name: /Referral/ })).toBeInTheDocument();
    expect(screen.getAllByText("MIAMI10")).toHaveLength(2);
  });

  it("lists one page of users with the count, the columns of the review table and a link to each", async () => {
    stub([row({}), row({ id: 2, name: "Ben Stone", status: "stop", reseller: true })], 42);
    renderScreen(<UsersPage />, { path: "/admin/users" });
    const link = await screen.findByRole("link", { name: "Ana García" });
    expect(link).toHaveAttribute("href", "/admin/users/1");
    expect(screen.getByRole("status")).toHaveTextContent("42 users");
    const first = link.closest("tr")!;
    expect(within(first).getByText("+1 (305) 555-1050")).toBeInTheDocument();
    expect(within(first).getByText("09/03/31")).toBeInTheDocument();
    expect(within(first).getByText("ON")).toBeInTheDocument();
    expect(screen.getByText("Page 1 of 3")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Ben Stone" }).closest("tr")).toHaveClass("row-reseller");
  });

  it("names a row without a name: an erased account, or a sign-up whose name was dropped", async () => {
    stub([row({ id: 7, name: "", phone: "erased:7" }), row({ id: 8, name: "" })]);
    renderScreen(<UsersPage />, { path: "/admin/users" });
    const erased = await screen.findByRole("link", { name: "Deleted account" });
    expect(erased).toHaveAttribute("href", "/admin/users/7");
    expect(within(erased.closest("tr")!).queryByText(/erased/)).toBeNull();
    expect(screen.getByRole("link", { name: "(no name)" })).toHaveAttribute("href", "/admin/users/8");
  });

  it("filters, sorts and searches on the server, back on page 1, with the filters in the address", async () => {
    const user = userEvent.setup();
    const api = stub();
    const router = renderScreen(<UsersPage />, { path: "/admin/users?page=2", route: "/admin/users" });
    await screen.findByRole("link", { name: "Ana García" });
    expect(lastQuery(api).get("page")).toBe("2");
    expect(lastQuery(api).get("role")).toBe("drivers");
    expect(lastQuery(api).get("timeZone")).toBeTruthy();

    await user.selectOptions(screen.getByLabelText("System"), "on");
    await waitFor(() => expect(lastQuery(api).get("system")).toBe("on"));
    expect(lastQuery(api).get("page")).toBe("1");
    await user.selectOptions(screen.getByLabelText("Good standing"), "no");
    await waitFor(() => expect(lastQuery(api).get("goodStanding")).toBe("no"));
    await user.click(screen.getByRole("checkbox", { name: "Tampa" }));
    await waitFor(() => expect(lastQuery(api).getAll("region")).toEqual(["Tampa"]));
    await user.click(screen.getByRole("button", { name: /Name/ }));
    await waitFor(() => expect(`${lastQuery(api).get("sort")} ${lastQuery(api).get("dir")}`).toBe("name asc"));
    await user.type(screen.getByLabelText("Search"), "garcia");
    await waitFor(() => expect(lastQuery(api).get("search")).toBe("garcia"));
    expect(router.state.location.search).toContain("search=garcia");
    expect(router.state.location.search).toContain("system=on");

    await user.click(screen.getByRole("button", { name: "Clear all filters" }));
    await waitFor(() => expect(lastQuery(api).get("system")).toBe("all"));
    expect(screen.getByLabelText("Search")).toHaveValue("");
  });

  it("exports the filtered set as CSV with the same filters", async () => {
    const user = userEvent.setup();
    const api = stub();
    const created = vi.fn(() => "blob:csv");
    vi.stubGlobal("URL", Object.assign(URL, { createObjectURL: created, revokeObjectURL: vi.fn() }));
    renderScreen(<UsersPage />, { path: "/admin/users?system=off&region=Miami", route: "/admin/users" });
    await screen.findByRole("link", { name: "Ana García" });
    await user.click(screen.getByRole("button", { name: "Export CSV" }));
    await waitFor(() => expect(created).toHaveBeenCalled());
    const asked = api.to("/api/admin/users/export.csv")[0]!.url.searchParams;
    expect(asked.get("system")).toBe("off");
    expect(asked.getAll("region")).toEqual(["Miami"]);
    expect(asked.get("page")).toBeNull();
  });

  it("says when nothing matches, and when the list cannot be loaded", async () => {
    stub([], 0);
    renderScreen(<UsersPage />, { path: "/admin/users" });
    expect(await screen.findByText("No user matches these filters.")).toBeInTheDocument();
  });

  it("shows an error with Try again", async () => {
    mockApi([{ path: "/api/admin/users", reply: () => ({ status: 403, body: { error: { code: "forbidden", message: "no" } } }) }]);
    renderScreen(<UsersPage />, { path: "/admin/users" });
    expect(await screen.findByText("Something went wrong. Try again.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Try again" })).toBeInTheDocument();
  });

  it("speaks Spanish", async () => {
    await setLanguage("es");
    stub();
    renderScreen(<UsersPage />, { path: "/admin/users" });
    expect(await screen.findByRole("heading", { name: "Usuarios" })).toBeInTheDocument();
    expect(await screen.findByText("2 usuarios")).toBeInTheDocument();
    expect(screen.getByText("Página 1 de 1")).toBeInTheDocument();
  });
});
