import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CampaignView as Campaign, LedgerRow } from "../../../../shared/campaigns";
import { toast } from "../../../components/ui/Toast";
import { setLanguage } from "../../../i18n";
import { setTokenSource } from "../../../lib/api-client";
import { type Call, mockApi, renderScreen, stubConfirm } from "../../../test/admin-harness";
import CampaignPage from "./CampaignPage";
import CampaignsPage from "./CampaignsPage";

function campaign(over: Partial<Campaign> = {}): Campaign {
  return {
    id: 12,
    app: "flex",
    channel: "sms",
    source: "drivers",
    message: "Hello drivers",
    template: null,
    author: { id: 1, name: "Olivia Owner" },
    status: "sending",
    category: "transactional",
    purpose: "service",
    language: "en",
    scheduledAt: null,
    deferred: null,
    total: 10,
    counts: { pending: 6, deferred: 0, sending: 0, sent: 2, delivered: 1, failed: 1, skipped: 0 },
    inDoubt: 0,
    createdAt: Date.UTC(2026, 4, 2, 15, 30),
    updatedAt: Date.UTC(2026, 4, 2, 15, 31),
    ...over,
  };
}

const done = { status: "done" as const, counts: { pending: 0, deferred: 0, sending: 0, sent: 5, delivered: 3, failed: 1, skipped: 1 } };

function ledger(call: Call) {
  const status = call.url.searchParams.get("status");
  const rows = Array.from(
    { length: 10 },
    (_, i): LedgerRow => ({
      phone: `+1305555${1000 + i}`,
      name: `Driver ${i}`,
      status: i === 0 ? "failed" : i === 1 ? "skipped" : "delivered",
      providerId: i === 1 ? null : `SM${i}`,
      errorCode: i === 0 ? "21211" : i === 1 ? "opted_out" : null,
      errorMessage: i === 0 ? "Invalid 'To' number" : null,
      attempts: 1,
      deadLettered: false,
      deferredUntil: null,
      updatedAt: Date.UTC(2026, 4, 2, 15, 31),
    }),
  ).filter((r) => !status || r.status === status);
  return { body: { total: rows.length, page: 1, pageSize: 20, rows } };
}

beforeEach(async () => {
  await setLanguage("en");
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  act(() => toast.clear());
});

describe("campaigns list", () => {
  it("shows author, channel, audience size, created and a progress bar that refreshes while running", async () => {
    let calls = 0;
    mockApi([
      {
        path: "/api/admin/campaigns",
        reply: () => {
          calls++;
          return {
            body: {
              total: 2,
              page: 1,
              pageSize: 20,
              rows: [calls === 1 ? campaign() : campaign(done), campaign({ id: 11, channel: "whatsapp", source: "list", ...done, total: 10 })],
            },
          };
        },
      },
    ]);
    renderScreen(<CampaignsPage />, { path: "/admin/campaigns" });
    const table = await screen.findByRole("table");
    const row = within(table).getAllByRole("row")[1]!;
    expect(row).toHaveTextContent("Olivia Owner");
    expect(row).toHaveTextContent("SMS");
    expect(row).toHaveTextContent("Drivers");
    expect(row).toHaveTextContent("10");
    expect(row).toHaveTextContent("Sending");
    expect(within(row).getByRole("link")).toHaveAttribute("href", "/admin/campaigns/12");
    expect(within(table).getAllByRole("row")[2]).toHaveTextContent("WhatsApp");
    expect(within(row).getByRole("progressbar")).toHaveAttribute("aria-valuenow", "40");
    expect(screen.getByText("Sending: progress updates by itself.")).toBeInTheDocument();
    await waitFor(() => expect(within(row).getByRole("progressbar")).toHaveAttribute("aria-valuenow", "100"), { timeout: 5000 });
    expect(row).toHaveTextContent("Done");
    expect(screen.queryByText("Sending: progress updates by itself.")).not.toBeInTheDocument();
    const before = calls;
    await new Promise((r) => setTimeout(r, 2500));
    expect(calls).toBe(before);
  }, 10_000);

  it("says so when there is no campaign yet, and when the list cannot load", async () => {
    mockApi([{ path: "/api/admin/campaigns", reply: () => ({ body: { total: 0, page: 1, pageSize: 20, rows: [] } }) }]);
    renderScreen(<CampaignsPage />, { path: "/admin/campaigns" });
    expect(await screen.findByText("No campaigns yet.")).toBeInTheDocument();
  });

  it("shows 'An error has occurred.' when the list fails", async () => {
    mockApi([{ path: "/api/admin/campaigns", reply: () => ({ status: 500, body: { error: { code: "internal", message: "Internal error" } } }) }]);
    renderScreen(<CampaignsPage />, { path: "/admin/campaigns" });
    expect(await screen.findByText("An error has occurred.")).toBeInTheDocument();
  });
});

describe("campaign ledger", () => {
  it("shows the progress legend and the recipients with provider ids and error codes, filtered by status", async () => {
    const user = userEvent.setup();
    const api = mockApi([
      { path: "/api/admin/campaigns/12", reply: () => ({ body: { campaign: campaign(done) } }) },
      { path: "/api/admin/campaigns/12/messages", reply: ledger },
    ]);
    renderScreen(<CampaignPage />, { path: "/admin/campaigns/12", route: "/admin/campaigns/:id" });
    expect(await screen.findByRole("heading", { name: "Campaign #12" })).toBeInTheDocument();
    expect(await screen.findByText("Hello drivers")).toBeInTheDocument();
    expect(screen.getByRole("progressbar")).toHaveAttribute("aria-valuenow", "100");
    const legend = screen.getByRole("list");
    for (const [label, n] of [
      ["Pending", 0],
      ["Sent", 5],
      ["Delivered", 3],
      ["Failed", 1],
      ["Skipped", 1],
    ] as const) {
      expect(within(legend).getByText(label).parentElement).toHaveTextContent(`${label} ${n}`);
    }
    const table = await screen.findByRole("table", { name: "Recipients" });
    const first = within(table).getAllByRole("row")[1]!;
    expect(first).toHaveTextContent("+1 (305) 555-1000");
    expect(first).toHaveTextContent("21211");
    expect(first).toHaveTextContent("SM0");
    await user.selectOptions(screen.getByLabelText("Status", { selector: "select" }), "failed");
    await waitFor(() => expect(within(table).getAllByRole("row")).toHaveLength(2));
    expect(api.to("/api/admin/campaigns/12/messages").at(-1)!.url.searchParams.get("status")).toBe("failed");
  });

  it("retries the failed only, after a confirm, and opens the new campaign", async () => {
    const user = userEvent.setup();
    const api = mockApi([
      { path: "/api/admin/campaigns/12", reply: () => ({ body: { campaign: campaign(done) } }) },
      { path: "/api/admin/campaigns/12/messages", reply: ledger },
      {
        method: "POST",
        path: "/api/admin/campaigns/12/retry-failed",
        reply: () => ({ status: 201, body: { campaign: campaign({ id: 13, source: "retry", total: 1 }) } }),
      },
    ]);
    const confirm = stubConfirm(true);
    const router = renderScreen(<CampaignPage />, { path: "/admin/campaigns/12", route: "/admin/campaigns/:id" });
    await user.click(await screen.findByRole("button", { name: "Retry failed only" }));
    expect(confirm).toHaveBeenCalledWith(expect.stringContaining("Send again to the failed recipients (1)?"));
    await waitFor(() => expect(router.state.location.pathname).toBe("/admin/campaigns/13"));
    expect(api.to("/api/admin/campaigns/12/retry-failed", "POST")).toHaveLength(1);
  });

  it("cannot retry while running or with nothing failed", async () => {
    mockApi([
      { path: "/api/admin/campaigns/12", reply: () => ({ body: { campaign: campaign({ counts: { ...campaign().counts, failed: 0 } }) } }) },
      { path: "/api/admin/campaigns/12/messages", reply: ledger },
    ]);
    renderScreen(<CampaignPage />, { path: "/admin/campaigns/12", route: "/admin/campaigns/:id" });
    expect(await screen.findByRole("button", { name: "Retry failed only" })).toBeDisabled();
  });

  it("downloads the CSV with the bearer token and hands it over as a blob link", async () => {
    const user = userEvent.setup();
    setTokenSource(async () => "id-token-1");
    const api = mockApi([
      { path: "/api/admin/campaigns/12", reply: () => ({ body: { campaign: campaign(done) } }) },
      { path: "/api/admin/campaigns/12/messages", reply: ledger },
      { path: "/api/admin/campaigns/12/export.csv", reply: () => ({ body: "phone,name,status\n+13055551000,Driver 0,failed\n" }) },
    ]);
    const createObjectURL = vi.spyOn(URL, "createObjectURL").mockImplementation(() => "blob:campaign-12");
    vi.spyOn(URL, "revokeObjectURL").mockImplementation(() => {});
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    renderScreen(<CampaignPage />, { path: "/admin/campaigns/12", route: "/admin/campaigns/:id" });
    await user.click(await screen.findByRole("button", { name: "Export CSV" }));
    const link = await screen.findByRole("link", { name: "campaign-12.csv" });
    expect(link).toHaveAttribute("href", "blob:campaign-12");
    expect(link).toHaveAttribute("download", "campaign-12.csv");
    expect(click).toHaveBeenCalled();
    expect(await (createObjectURL.mock.calls[0]![0] as Blob).text()).toContain("+13055551000,Driver 0,failed");
    expect(api.to("/api/admin/campaigns/12/export.csv")[0]!.headers.get("Authorization")).toBe("Bearer id-token-1");
    setTokenSource(async () => null);
  });

  it("says when the campaign does not exist", async () => {
    mockApi([{ path: "/api/admin/campaigns/99", reply: () => ({ status: 404, body: { error: { code: "not_found", message: "Not found" } } }) }]);
    renderScreen(<CampaignPage />, { path: "/admin/campaigns/99", route: "/admin/campaigns/:id" });
    expect(await screen.findByText("This campaign does not exist.")).toBeInTheDocument();
  });
});

describe("the campaign page's sends in doubt", () => {
  const inDoubt = campaign({ counts: { pending: 2, deferred: 0, sending: 3, sent: 4, delivered: 0, failed: 1, skipped: 0 }, inDoubt: 3 });

  it("says how many sends are in doubt while they are, and that none is sent twice", async () => {
    mockApi([
      { path: "/api/admin/campaigns/12", reply: () => ({ body: { campaign: inDoubt } }) },
      { path: "/api/admin/campaigns/12/messages", reply: ledger },
    ]);
    renderScreen(<CampaignPage />, { path: "/admin/campaigns/12", route: "/admin/campaigns/:id" });
    const note = await screen.findByText(/3 in doubt: no answer from the provider was recorded/);
    expect(note).toHaveTextContent("Each is checked with the provider before anything is sent again; none is sent twice.");
    expect(within(note).getByText("In doubt")).toBeInTheDocument();
  });

  it("says it in Spanish", async () => {
    await setLanguage("es");
    mockApi([
      { path: "/api/admin/campaigns/12", reply: () => ({ body: { campaign: inDoubt } }) },
      { path: "/api/admin/campaigns/12/messages", reply: ledger },
    ]);
    renderScreen(<CampaignPage />, { path: "/admin/campaigns/12", route: "/admin/campaigns/:id" });
    const note = await screen.findByText(/3 en duda: no quedó registrada la respuesta del proveedor/);
    expect(within(note).getByText("En duda")).toBeInTheDocument();
  });

  it("shows no note once nothing is in doubt", async () => {
    mockApi([
      { path: "/api/admin/campaigns/12", reply: () => ({ body: { campaign: campaign() } }) },
      { path: "/api/admin/campaigns/12/messages", reply: ledger },
    ]);
    renderScreen(<CampaignPage />, { path: "/admin/campaigns/12", route: "/admin/campaigns/:id" });
    expect(await screen.findByText("Hello drivers")).toBeInTheDocument();
    expect(screen.queryByText(/in doubt/)).not.toBeInTheDocument();
  });
});

describe("the campaign page's deferred and scheduled states", () => {
  it("shows deferred as its own state, with until when, in the summary, the bar and the ledger", async () => {
    const eight = new Date(2026, 6, 16, 8, 0).getTime();
    const deferred = campaign({
      category: "marketing",
      purpose: "marketing",
      counts: { pending: 0, deferred: 1, sending: 0, sent: 1, delivered: 0, failed: 0, skipped: 2 },
      total: 4,
      deferred: { first: eight, last: eight },
    });
    mockApi([
      { path: "/api/admin/campaigns/12", reply: () => ({ body: { campaign: deferred } }) },
      {
        path: "/api/admin/campaigns/12/messages",
        reply: () => ({
          body: {
            total: 1,
            page: 1,
            pageSize: 20,
            rows: [
              {
                phone: "+12125550100",
                name: "East",
                status: "deferred",
                deferredUntil: eight,
                providerId: null,
                errorCode: null,
                errorMessage: null,
                attempts: 0,
                deadLettered: false,
                updatedAt: eight,
              },
            ],
          },
        }),
      },
    ]);
    renderScreen(<CampaignPage />, { path: "/admin/campaigns/12", route: "/admin/campaigns/:id" });
    expect(await screen.findByText(/1 deferred to their recipients' allowed hours, until 16\/07\/26 08:00\./)).toBeInTheDocument();
    expect(screen.getByText("Marketing: offers, news, invitations to join")).toBeInTheDocument();
    const legend = screen.getByRole("list");
    expect(within(legend).getByText("Deferred").parentElement).toHaveTextContent("Deferred 1");
    const table = await screen.findByRole("table", { name: "Recipients" });
    expect(within(table).getAllByRole("row")[1]).toHaveTextContent("Waits until 16/07/26 08:00");
    expect(screen.queryByRole("button", { name: "Cancel campaign" })).not.toBeInTheDocument();
  });

  it("shows when a scheduled campaign starts and cancels it after a confirm", async () => {
    const user = userEvent.setup();
    const at = new Date(2026, 6, 20, 9, 30).getTime();
    const scheduled = campaign({
      status: "scheduled",
      scheduledAt: at,
      counts: { pending: 0, deferred: 0, sending: 0, sent: 0, delivered: 0, failed: 0, skipped: 0 },
    });
    const api = mockApi([
      { path: "/api/admin/campaigns/12", reply: () => ({ body: { campaign: scheduled } }) },
      { path: "/api/admin/campaigns/12/messages", reply: () => ({ body: { total: 0, page: 1, pageSize: 20, rows: [] } }) },
      { method: "POST", path: "/api/admin/campaigns/12/cancel", reply: () => ({ body: { campaign: { ...scheduled, status: "cancelled" } } }) },
    ]);
    const confirm = stubConfirm(true);
    renderScreen(<CampaignPage />, { path: "/admin/campaigns/12", route: "/admin/campaigns/:id" });
    expect(await screen.findByText("Starts at 20/07/26 09:30. It can be cancelled until then.")).toBeInTheDocument();
    expect(screen.getByText("Scheduled")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Cancel campaign" }));
    expect(confirm).toHaveBeenCalledWith(expect.stringContaining("Cancel this campaign? Nothing will be sent."));
    expect(await screen.findByText("The campaign was cancelled.")).toBeInTheDocument();
    expect(api.to("/api/admin/campaigns/12/cancel", "POST")).toHaveLength(1);
    expect(await screen.findByText("Cancelled")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Cancel campaign" })).not.toBeInTheDocument();
  });
});
