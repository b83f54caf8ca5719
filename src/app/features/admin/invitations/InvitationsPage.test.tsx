import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLanguage } from "../../../i18n";
import { mockApi, renderScreen } from "../../../test/admin-harness";
import InvitationsPage from "./InvitationsPage";

const row = {
  id: 3,
  app: "flex",
  invitedAt: new Date(2031, 2, 4, 18, 30).getTime(),
  inviterId: 10,
  inviterName: "Ana Inviter",
  phone: "+13055550150",
  inviteeId: null,
  inviteeName: null,
  paid: false,
  freeWeek: false,
};

describe("invitations page", () => {
  beforeEach(async () => {
    await setLanguage("en");
  });
  afterEach(() => vi.unstubAllGlobals());

  it("shows each invitation with inviter, invitee, registered, paid and free week, and filters them", async () => {
    const user = userEvent.setup();
    const api = mockApi([
      {
        path: "/api/admin/invitations",
        reply: () => ({
          body: { total: 2, page: 1, pageSize: 20, rows: [row, { ...row, id: 4, inviteeId: 11, inviteeName: "Ben Friend", paid: true, freeWeek: true }] },
        }),
      },
    ]);
    renderScreen(<InvitationsPage />, { path: "/admin/invitations" });
    const first = (await screen.findAllByText("+1 (305) 555-0150"))[0]!.closest("tr")!;
    expect(within(first).getByRole("link", { name: "Ana Inviter" })).toHaveAttribute("href", "/admin/users/10");
    expect(within(first).getByText("Unregistered")).toBeInTheDocument();
    expect(within(first).getByText("04/03/31 18:30")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Ben Friend" })).toHaveAttribute("href", "/admin/users/11");
    expect(screen.getByText("2 invitations")).toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText("Paid"), "no");
    await waitFor(() => expect(api.to("/api/admin/invitations").at(-1)!.url.searchParams.get("paid")).toBe("no"));
    await user.type(screen.getByLabelText("Search"), "ana");
    await waitFor(() => expect(api.to("/api/admin/invitations").at(-1)!.url.searchParams.get("search")).toBe("ana"));
  });

  it("says so when the list cannot be loaded", async () => {
    mockApi([{ path: "/api/admin/invitations", reply: () => ({ status: 403, body: { error: { code: "forbidden", message: "no" } } }) }]);
    renderScreen(<InvitationsPage />, { path: "/admin/invitations" });
    expect(await screen.findByText("The list could not be loaded.")).toBeInTheDocument();
  });
});
