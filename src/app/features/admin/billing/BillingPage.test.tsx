import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLanguage } from "../../../i18n";
import { mockApi, renderScreen, support, supportWithBilling } from "../../../test/admin-harness";
import BillingPage from "./BillingPage";

vi.mock("./RevenueChart", () => ({ default: ({ days }: { days: string[] }) => <p>revenue chart over {days.length} days</p> }));

const payment = {
  id: 12,
  userId: 3,
  userName: "Diego Driver",
  phoneNumber: "+13055550102",
  app: "flex",
  payerId: 3,
  payerName: "Diego Driver",
  planId: 1,
  days: 7,
  amountCents: 3999,
  refundedCents: 0,
  status: "successful",
  failureCode: null,
  provider: "local",
  createdAt: 1,
  settledAt: new Date(2031, 2, 4, 10, 30).getTime(),
};
const page = <T,>(rows: T[], extra = {}) => ({ body: { total: rows.length, page: 1, pageSize: 20, rows, ...extra } });

function stub() {
  return mockApi([
    {
      path: "/api/admin/billing/payments",
      reply: () =>
        page([payment], {
          totals: { grossCents: 3999, refundedCents: 0, netCents: 3999, daysSold: 7, byStatus: { successful: 1, refunded: 0, failed: 0, processing: 0 } },
        }),
    },
    { method: "POST", path: "/api/admin/billing/payments/12/refund", reply: () => ({ status: 202, body: { refund: {}, payment } }) },
    { path: "/api/admin/billing/payments/export.csv", reply: () => ({ body: "id\r\n12\r\n" }) },
    {
      path: "/api/admin/dashboard/series",
      reply: () => ({
        body: {
          timeZone: "UTC",
          days: ["2031-03-10"],
          signups: [0],
          payments: [1],
          revenueCents: [3999],
          blocksWon: [0],
          messagesSent: [0],
          messagesFailed: [0],
        },
      }),
    },
    {
      path: "/api/admin/billing/plans",
      reply: () => ({ body: { Items: [{ id: 1, app: "flex", name: "1 week", days: 7, priceCents: 3999, active: true, sortOrder: 0, updatedAt: null }] } }),
    },
    { method: "PATCH", path: "/api/admin/billing/plans/1", reply: () => ({ body: { plan: {} } }) },
    {
      path: "/api/admin/billing/resellers",
      reply: () =>
        page(
          [
            {
              userId: 9,
              name: "Rita Reseller",
              phoneNumber: "+13055550109",
              app: "flex",
              status: "applied",
              message: "I run a drivers' group",
              referralCode: null,
              commissionPercent: 0,
              stripeExpressId: null,
              detailsSubmitted: false,
              payoutsEnabled: false,
              clients: 0,
              appliedAt: new Date(2031, 1, 28, 7, 0).getTime(),
              decidedAt: null,
            },
          ],
          { defaultCommissionPercent: 20 },
        ),
    },
    { method: "POST", path: "/api/admin/billing/resellers/9/approve", reply: () => ({ body: { reseller: {} } }) },
    { method: "POST", path: "/api/admin/billing/resellers/9/reject", reply: () => ({ body: { reseller: {} } }) },
    {
      path: "/api/admin/billing/commissions",
      reply: () => page([], { totals: { amountCents: 0, transferredCents: 0, reversedCents: 0, reversalDueCents: 0 } }),
    },
  ]);
}

beforeEach(async () => {
  await setLanguage("en");
});
afterEach(() => vi.unstubAllGlobals());

describe("billing page", () => {
  it("lists payments with totals and refunds part of one after a confirm", async () => {
    const user = userEvent.setup();
    const api = stub();
    renderScreen(<BillingPage />, { path: "/admin/billing" });
    expect(await screen.findByRole("link", { name: "Diego Driver" })).toHaveAttribute("href", "/admin/users/3");
    expect(screen.getByRole("link", { name: "Diego Driver" }).closest("tr")).toHaveTextContent("04/03/31 10:30");
    const totals = screen.getByText("Days of service sold").closest("dl")!;
    expect(within(totals).getByText("Revenue").nextSibling).toHaveTextContent("$39.99");
    expect(await screen.findByText("revenue chart over 1 days")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Refund payment 12" }));
    const dialog = await screen.findByRole("dialog", { name: "Refund Diego Driver" });
    const amount = within(dialog).getByLabelText(/Amount to refund/);
    await user.clear(amount);
    await user.type(amount, "10");
    await user.click(within(dialog).getByRole("button", { name: "Refund $10.00" }));
    await waitFor(() => expect(api.to("/api/admin/billing/payments/12/refund", "POST")[0]?.body).toEqual({ amountCents: 1000 }));
  });

  it("lets the owner edit a plan and approve a reseller", async () => {
    const user = userEvent.setup();
    const api = stub();
    renderScreen(<BillingPage />, { path: "/admin/billing" });
    const price = await screen.findByLabelText("Price of 1 week");
    await user.clear(price);
    await user.type(price, "44.99");
    await user.click(within(screen.getByRole("region", { name: "Plans" })).getByRole("button", { name: "Save" }));
    await waitFor(() =>
      expect(api.to("/api/admin/billing/plans/1", "PATCH")[0]?.body).toEqual({ name: "1 week", days: 7, priceCents: 4499, active: true, sortOrder: 0 }),
    );

    expect((await screen.findByRole("button", { name: "Approve" })).closest("tr")).toHaveTextContent("28/02/31 07:00");
    await user.click(await screen.findByRole("button", { name: "Approve" }));
    const dialog = await screen.findByRole("dialog", { name: "Approve Rita Reseller as a reseller" });
    await user.type(within(dialog).getByLabelText("Referral code"), "RITA10");
    await user.type(within(dialog).getByLabelText("Commission (%)"), "10");
    await user.click(within(dialog).getByRole("button", { name: "Approve" }));
    await waitFor(() => expect(api.to("/api/admin/billing/resellers/9/approve", "POST")[0]?.body).toEqual({ referralCode: "RITA10", commissionPercent: 10 }));
  });

  it("checks each form before calling: a refund over what is left, a price under 50 cents, a bad referral code", async () => {
    const user = userEvent.setup();
    const api = stub();
    renderScreen(<BillingPage />, { path: "/admin/billing" });
    await user.click(await screen.findByRole("button", { name: "Refund payment 12" }));
    const refundDialog = await screen.findByRole("dialog", { name: "Refund Diego Driver" });
    const amount = within(refundDialog).getByLabelText(/Amount to refund/);
    await user.clear(amount);
    await user.type(amount, "40");
    await user.click(within(refundDialog).getByRole("button", { name: "Refund $40.00" }));
    expect(await within(refundDialog).findByText("More than 0 and at most $39.99.")).toBeInTheDocument();
    await user.click(within(refundDialog).getByRole("button", { name: "Cancel" }));

    const price = await screen.findByLabelText("Price of 1 week");
    await user.clear(price);
    await user.type(price, "0.10");
    await user.click(within(screen.getByRole("region", { name: "Plans" })).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(price).toHaveAttribute("aria-invalid", "true"));

    await user.click(await screen.findByRole("button", { name: "Approve" }));
    const approveDialog = await screen.findByRole("dialog", { name: "Approve Rita Reseller as a reseller" });
    await user.type(within(approveDialog).getByLabelText("Referral code"), "R!");
    await user.click(within(approveDialog).getByRole("button", { name: "Approve" }));
    await waitFor(() => expect(within(approveDialog).getByLabelText("Referral code")).toHaveAttribute("aria-invalid", "true"));
    expect(api.calls.filter((c) => c.method !== "GET")).toHaveLength(0);
  });

  it("rejects an application after the confirm dialog, with the outcome as a toast", async () => {
    const user = userEvent.setup();
    const api = stub();
    renderScreen(<BillingPage />, { path: "/admin/billing" });
    await user.click(await screen.findByRole("button", { name: "Reject" }));
    const confirm = await screen.findByRole("dialog", { name: "Reject Rita Reseller's application?" });
    await user.click(within(confirm).getByRole("button", { name: "Reject" }));
    expect(await screen.findByText("Rita Reseller's application was rejected")).toBeInTheDocument();
    expect(api.to("/api/admin/billing/resellers/9/reject", "POST")).toHaveLength(1);
  });

  it("shows plans read-only to a billing admin who is not the owner", async () => {
    stub();
    renderScreen(<BillingPage />, { path: "/admin/billing", user: supportWithBilling });
    expect(await screen.findByText("Only the owner edits plans.")).toBeInTheDocument();
    expect(screen.queryByLabelText("Price of 1 week")).toBeNull();
  });

  it("keeps a billing admin who is not the owner to the default rate", async () => {
    const user = userEvent.setup();
    const api = stub();
    renderScreen(<BillingPage />, { path: "/admin/billing", user: supportWithBilling });
    await user.click(await screen.findByRole("button", { name: "Approve" }));
    const dialog = await screen.findByRole("dialog", { name: "Approve Rita Reseller as a reseller" });
    const rate = within(dialog).getByLabelText("Commission (%)");
    expect(within(dialog).getByText("At most 20 % (the default); above it is the owner's to give.")).toBeInTheDocument();
    await user.type(rate, "100");
    await user.click(within(dialog).getByRole("button", { name: "Approve" }));
    expect(await within(dialog).findByText("Above the default rate: only the owner may give it.")).toBeInTheDocument();
    expect(api.to("/api/admin/billing/resellers/9/approve", "POST")).toHaveLength(0);
    await user.clear(rate);
    await user.type(rate, "20");
    await user.click(within(dialog).getByRole("button", { name: "Approve" }));
    await waitFor(() => expect(api.to("/api/admin/billing/resellers/9/approve", "POST")[0]?.body).toEqual({ commissionPercent: 20 }));
  });

  it("offers nobody a decision on their own application", async () => {
    stub();
    renderScreen(<BillingPage />, { path: "/admin/billing", user: { ...supportWithBilling, id: 9 } });
    expect(await screen.findByText("Yours: another administrator decides")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Approve" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Reject" })).toBeNull();
  });

  it("tells an admin without the billing permission why there is nothing to see", async () => {
    const api = stub();
    renderScreen(<BillingPage />, { path: "/admin/billing", user: support });
    expect(await screen.findByText("Billing needs the billing details permission")).toBeInTheDocument();
    expect(api.calls).toHaveLength(0);
  });
});
