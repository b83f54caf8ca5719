import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from "vitest";
import type { InvitationRow } from "../../../../shared/audience";
import { toast } from "../../../components/ui/Toast";
import { setLanguage } from "../../../i18n";
import { type Call, mockApi, owner, type Route, renderScreen, stubConfirm } from "../../../test/admin-harness";
import { InvitationsPanel } from "./InvitationsPanel";
import NotificationsPage from "./NotificationsPage";

function invitation(i: number): InvitationRow {
  const registered = i % 3 === 0;
  return {
    phone: `+1786555${String(2000 + i)}`,
    name: registered ? `Invitee ${i}` : "Unregistered",
    unregistered: !registered,
    invitedAt: Date.UTC(2026, 2, 10, 12),
    accountConnected: registered,
    setupComplete: false,
    userId: registered ? i : null,
  };
}

function invitations(call: Call) {
  const page = Number(call.url.searchParams.get("page") ?? 1);
  const pageSize = Number(call.url.searchParams.get("pageSize") ?? 20);
  const all = Array.from({ length: 25 }, (_, i) => invitation(i + 1));
  return { body: { total: all.length, page, pageSize, rows: all.slice((page - 1) * pageSize, page * pageSize) } };
}

const routes: Route[] = [
  { path: "/api/admin/settings", reply: () => ({ body: { ownerName: "Olivia Owner" } }) },
  { path: "/api/admin/regions", reply: () => ({ body: { Items: ["Miami"] } }) },
  { path: "/api/flex/v1/admin/referrals", reply: () => ({ body: { Items: [] } }) },
  { path: "/api/admin/invitation-audience", reply: invitations },
  {
    path: "/api/admin/invitation-audience/review",
    reply: () => ({
      body: {
        total: 3,
        excluded: { opted_out: 0, no_consent: 0, frequency_cap: 0, whatsapp_marketing_us: 0 },
        sendNow: 3,
        deferred: { count: 0, first: null, last: null },
        refusal: null,
      },
    }),
  },
];

beforeEach(async () => {
  await setLanguage("en");
});
afterEach(() => {
  vi.unstubAllGlobals();
  act(() => toast.clear());
});

const messageBox = () => screen.getByRole("textbox", { name: "Message" });

describe("panel 2, unpaid invitations", () => {
  it("sends its filters to the invitation audience and names the unregistered", async () => {
    const user = userEvent.setup();
    const api = mockApi(routes);
    renderScreen(<InvitationsPanel />);
    fireEvent.change(screen.getByLabelText("Invitation date: start"), { target: { value: "2026-03-01" } });
    fireEvent.change(screen.getByLabelText("Invitation date: end"), { target: { value: "2026-03-31" } });
    await user.selectOptions(screen.getByLabelText("Registered?"), "no");
    await user.selectOptions(screen.getByLabelText("Proxy installed"), "yes");
    await user.type(messageBox(), "Your friend invited you");
    await user.click(screen.getByRole("radio", { name: "Service notice" }));
    await user.click(screen.getByRole("button", { name: "Review" }));
    expect(await screen.findByText("This message will be sent to 25 invited users")).toBeInTheDocument();
    const q = api.to("/api/admin/invitation-audience")[0]!.url.searchParams;
    expect(Object.fromEntries(q)).toMatchObject({
      startDate: "2026-03-01",
      endDate: "2026-03-31",
      registered: "no",
      accountConnected: "yes",
      page: "1",
      pageSize: "20",
    });
    expect(q.has("setupComplete")).toBe(false);
    const rows = within(await screen.findByRole("table")).getAllByRole("row");
    expect(rows[1]).toHaveTextContent("Unregistered");
    expect(rows[1]).toHaveTextContent("+1 (786) 555-2001");
    expect(rows[1]).toHaveTextContent("10/03/26");
    expect(rows[3]).toHaveTextContent("Invitee 3");
  });

  it("always limits the SMS to one segment, with no checkbox to lift it", async () => {
    mockApi(routes);
    renderScreen(<InvitationsPanel />, { user: owner });
    expect(screen.queryByRole("checkbox", { name: "Limit characters" })).not.toBeInTheDocument();
    fireEvent.change(messageBox(), { target: { value: "a".repeat(160) } });
    fireEvent.change(messageBox(), { target: { value: "a".repeat(161) } });
    expect(messageBox()).toHaveValue("a".repeat(160));
    expect(screen.getByText(/0 characters remaining · 1 SMS · GSM-7/)).toBeInTheDocument();
  });

  it("shows a spinner while loading, then 'There was an error fetching the data.' on failure", async () => {
    const user = userEvent.setup();
    let fail!: () => void;
    mockApi([
      {
        path: "/api/admin/invitation-audience",
        reply: () =>
          new Promise((resolve) => {
            fail = () => resolve({ status: 500, body: { error: { code: "internal", message: "Internal error" } } });
          }),
      },
      ...routes,
    ]);
    renderScreen(<InvitationsPanel />);
    await user.type(messageBox(), "Hi");
    await user.click(screen.getByRole("radio", { name: "Service notice" }));
    await user.click(screen.getByRole("button", { name: "Review" }));
    expect(await screen.findByText("Loading users…")).toBeInTheDocument();
    await act(async () => fail());
    expect(await screen.findByText("There was an error fetching the data.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Send" })).toBeDisabled();
  });

  it("has nothing to review when there are no invitations", async () => {
    const user = userEvent.setup();
    mockApi([{ path: "/api/admin/invitation-audience", reply: () => ({ body: { total: 0, page: 1, pageSize: 20, rows: [] } }) }, ...routes]);
    renderScreen(<InvitationsPanel />);
    await user.type(messageBox(), "Hi");
    await user.click(screen.getByRole("radio", { name: "Service notice" }));
    await user.click(screen.getByRole("button", { name: "Review" }));
    expect(await screen.findByText("Nothing to review: there are no unpaid invitations for these filters.")).toBeInTheDocument();
    expect(screen.queryByRole("table")).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Send" })).toBeDisabled();
  });

  it("brings its review into view, sends with source 'invitations', the deselected phones excluded, then goes to the campaign", async () => {
    const user = userEvent.setup();
    const scrolled = vi.spyOn(HTMLElement.prototype, "scrollIntoView").mockImplementation(() => {});
    onTestFinished(() => scrolled.mockRestore());
    const api = mockApi([
      ...routes,
      { method: "POST", path: "/api/admin/campaigns", reply: () => ({ status: 201, body: { campaign: { id: 9, total: 24 } } }) },
    ]);
    const confirm = stubConfirm(true);
    renderScreen(<InvitationsPanel />);
    await user.type(messageBox(), "Hi");
    await user.click(screen.getByRole("radio", { name: "Service notice" }));
    expect(scrolled).not.toHaveBeenCalled();
    await user.click(screen.getByRole("button", { name: "Review" }));
    // The review's panel, not merely some element, is scrolled to.
    await waitFor(() => expect(scrolled).toHaveBeenCalledTimes(1));
    expect(scrolled.mock.contexts[0]).toBe(screen.getByRole("region", { name: "Send SMS to unpaid invitations" }));
    await user.click(await screen.findByRole("checkbox", { name: "Select +17865552002" }));
    expect(screen.getByText("This message will be sent to 24 invited users")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Send" }));
    expect(confirm.mock.calls[0]![0]).toContain("Send this message to 24 people?");
    expect(confirm.mock.calls[0]![0]).toContain("24 invited people matching the filters, less those deselected");
    expect(confirm.mock.calls[0]![0]).toContain("FiltersNone: everyone in this list");
    // An answer without a message: the specification's sentence, in the admin's language.
    expect(await screen.findByText("Message sent successfully to 24 users.")).toBeInTheDocument();
    expect(api.to("/api/admin/campaigns", "POST")[0]!.body).toMatchObject({
      source: "invitations",
      channel: "sms",
      message: "Hi",
      excludedPhones: ["+17865552002"],
    });
    expect(await screen.findByText("campaign page")).toBeInTheDocument();
  });

  it("checks the date order like the server does", async () => {
    const user = userEvent.setup();
    mockApi(routes);
    renderScreen(<InvitationsPanel />);
    fireEvent.change(screen.getByLabelText("Invitation date: start"), { target: { value: "2026-03-31" } });
    fireEvent.change(screen.getByLabelText("Invitation date: end"), { target: { value: "2026-03-01" } });
    await user.type(messageBox(), "Hi");
    await user.click(screen.getByRole("radio", { name: "Service notice" }));
    await user.click(screen.getByRole("button", { name: "Review" }));
    expect(screen.getByText("The start date is after the end date.")).toBeInTheDocument();
  });
});

describe("the notifications page", () => {
  it("has Go back to /admin, a link to the campaigns and both panels", async () => {
    mockApi(routes);
    renderScreen(<NotificationsPage />);
    expect(screen.getByRole("link", { name: /Go back/ })).toHaveAttribute("href", "/admin");
    expect(screen.getByRole("link", { name: "Campaigns and delivery" })).toHaveAttribute("href", "/admin/campaigns");
    expect(screen.getByRole("heading", { name: "Send SMS (all users)" })).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "Send SMS to unpaid invitations" })).toBeInTheDocument();
    await waitFor(() => expect(screen.getAllByRole("checkbox", { name: "Limit characters" })).toHaveLength(1));
  });
});
