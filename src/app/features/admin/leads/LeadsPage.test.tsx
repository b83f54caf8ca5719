import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { LeadRow } from "../../../../shared/admin-lists";
import { setLanguage } from "../../../i18n";
import { mockApi, renderScreen } from "../../../test/admin-harness";
import LeadsPage from "./LeadsPage";

const lead = (over: Partial<LeadRow>): LeadRow => ({
  id: 1,
  app: "flex",
  phone: "+19545552000",
  name: "Form Person",
  email: null,
  source: "contact",
  message: "How do I pay?",
  userId: null,
  stage: "contact",
  status: "new",
  ownerId: null,
  ownerName: null,
  notes: null,
  createdAt: new Date(2031, 2, 4, 9, 5).getTime(),
  updatedAt: null,
  ...over,
});
const rows = [lead({}), lead({ id: 2, phone: "+19545552001", name: "Drop Off", source: "drop-off", message: null, userId: 44, stage: "unpaid" })];

function stub() {
  return mockApi([
    { path: "/api/admin/leads", reply: () => ({ body: { total: 2, page: 1, pageSize: 20, rows } }) },
    { path: "/api/admin/users", reply: () => ({ body: { total: 1, page: 1, pageSize: 100, rows: [{ id: 5, name: "Sam Support" }] } }) },
    { method: "PATCH", path: "/api/admin/leads/1", reply: (call) => ({ body: { lead: { ...rows[0], ...(call.body as object) } } }) },
  ]);
}

beforeEach(async () => {
  await setLanguage("en");
});
afterEach(() => vi.unstubAllGlobals());

describe("leads page", () => {
  it("lists contact messages and drop-offs with stage, status and owner, filtered on the server", async () => {
    const user = userEvent.setup();
    const api = stub();
    renderScreen(<LeadsPage />, { path: "/admin/leads" });
    const row = (await screen.findByText("Form Person")).closest("tr")!;
    expect(within(row).getByText("Contact form")).toBeInTheDocument();
    expect(within(row).getByText("How do I pay?")).toBeInTheDocument();
    // 4 March as the console writes every date (not the browser's 3/4/31).
    expect(within(row).getByText("04/03/31 09:05")).toBeInTheDocument();
    expect(within(row).getByText("Nobody")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Drop Off" })).toHaveAttribute("href", "/admin/users/44");
    expect(within(screen.getByRole("link", { name: "Drop Off" }).closest("tr")!).getByText("Never paid")).toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText("Stage"), "unpaid");
    await waitFor(() => expect(api.to("/api/admin/leads").at(-1)!.url.searchParams.get("stage")).toBe("unpaid"));
    await user.selectOptions(screen.getByLabelText("Owner"), "me");
    await waitFor(() => expect(api.to("/api/admin/leads").at(-1)!.url.searchParams.get("owner")).toBe("me"));
  });

  it("records status, owner and notes from a dialog", async () => {
    const user = userEvent.setup();
    const api = stub();
    renderScreen(<LeadsPage />, { path: "/admin/leads" });
    await user.click(await screen.findByRole("button", { name: "Follow up Form Person" }));
    const dialog = await screen.findByRole("dialog", { name: "Follow up Form Person" });
    await user.selectOptions(within(dialog).getByLabelText("Status"), "contacted");
    await user.selectOptions(within(dialog).getByLabelText("Owner"), "5");
    await user.type(within(dialog).getByLabelText("Notes"), "Called, pays Friday");
    await user.click(within(dialog).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(api.to("/api/admin/leads/1", "PATCH")[0]?.body).toEqual({ status: "contacted", ownerId: 5, notes: "Called, pays Friday" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });

  it("keeps the dialog open with the server's reason when it refuses, and clears an emptied note", async () => {
    const user = userEvent.setup();
    const api = mockApi([
      {
        path: "/api/admin/leads",
        reply: () => ({ body: { total: 1, page: 1, pageSize: 20, rows: [lead({ notes: "Old note", ownerId: 5, ownerName: "Sam" })] } }),
      },
      { path: "/api/admin/users", reply: () => ({ body: { total: 1, page: 1, pageSize: 100, rows: [{ id: 5, name: "Sam Support" }] } }) },
      { method: "PATCH", path: "/api/admin/leads/1", reply: () => ({ status: 404, body: { error: { code: "not_found", message: "This lead is gone" } } }) },
    ]);
    renderScreen(<LeadsPage />, { path: "/admin/leads" });
    await user.click(await screen.findByRole("button", { name: "Follow up Form Person" }));
    const dialog = await screen.findByRole("dialog", { name: "Follow up Form Person" });
    await user.clear(within(dialog).getByLabelText("Notes"));
    await user.selectOptions(within(dialog).getByLabelText("Owner"), "");
    await user.click(within(dialog).getByRole("button", { name: "Save" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("This lead is gone");
    expect(api.to("/api/admin/leads/1", "PATCH")[0]?.body).toEqual({ status: "new", ownerId: null, notes: null });
  });

  it("hands the selected leads' numbers to the tools page", async () => {
    const user = userEvent.setup();
    stub();
    const router = renderScreen(<LeadsPage />, { path: "/admin/leads" });
    await screen.findByText("Form Person");
    expect(screen.getByRole("button", { name: "Message these 0" })).toBeDisabled();
    await user.click(await screen.findByRole("checkbox", { name: "Select every lead on this page" }));
    await user.click(screen.getByRole("button", { name: "Message these 2" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/admin/tools"));
    expect(router.state.location.state).toEqual({ phones: ["+19545552000", "+19545552001"], app: "flex", from: "leads" });
  });
});
