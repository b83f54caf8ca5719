import { cleanup, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLanguage } from "../../i18n";
import type { SessionValue } from "../../lib/session";
import { aDriver, renderRoutes, signedIn, stubApi } from "../../test/render";
import InvitePage from "./InvitePage";
import PaymentPage from "./PaymentPage";

const DAY = 86_400_000;
const NOW = new Date(2026, 5, 10, 12).getTime();

const dana = aDriver({ email: "dana@example.com", expirationDateTimestamp: NOW + 3 * DAY, inviteCode: "ABCD2345" });

const noPayments = { body: { total: 0, page: 1, pageSize: 20, rows: [], totals: { grossCents: 0, refundedCents: 0, netCents: 0, daysSold: 0 } } };
const noChanges = { body: { total: 0, page: 1, pageSize: 20, rows: [] } };
const plans = { Items: [{ id: 1, app: "flex", name: "1 week", days: 7, priceCents: 3999 }], currency: "usd" };

function renderAt(path: string, session: Partial<SessionValue> = {}, toaster = false) {
  const value = signedIn(dana, { reloadUser: vi.fn(async () => {}), ...session });
  const router = renderRoutes(
    [
      { path: "/payment", Component: PaymentPage },
      { path: "/flex/invite", Component: InvitePage },
      { path: "/flex/invite/:phoneNumber", Component: InvitePage },
    ],
    { path, session: value, toaster },
  );
  return { router, value };
}

let assign: ReturnType<typeof vi.fn>;
beforeEach(async () => {
  await setLanguage("en");
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(NOW);
  assign = vi.fn();
  vi.stubGlobal("location", { ...window.location, href: window.location.href, assign, origin: "https://app.test" });
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("/payment", () => {
  it("shows each plan with the expiration it would give, and pays once however often Pay is pressed", async () => {
    const user = userEvent.setup();
    const calls = stubApi({
      "/api/plans": [{ body: plans }],
      "/api/payments/checkout": [{ status: 201, body: { paymentId: 5, url: "https://pay.test/cs_1" } }],
      "/api/payments": [noPayments],
      "/api/payments/service-time": [noChanges],
    });
    renderAt("/payment?utm=sms&payment=&canceled=0");
    expect(await screen.findByText("Your service runs until 13/06/26.")).toBeInTheDocument();
    // Three days left + seven.
    expect(await screen.findByText("Service until 20/06/26")).toBeInTheDocument();
    const pay = screen.getByRole("button", { name: "Pay $39.99 for 7 days" });
    await user.dblClick(pay);
    await waitFor(() => expect(assign).toHaveBeenCalledWith("https://pay.test/cs_1"));
    const checkouts = calls.filter((c) => c.path === "/api/payments/checkout");
    expect(checkouts).toHaveLength(1);
    expect(checkouts[0]!.body).toMatchObject({ planId: 1, returnPath: "/payment", returnQuery: "utm=sms", idempotencyKey: expect.any(String) });
  });

  it("says it couldn't start the payment process, in both languages", async () => {
    const user = userEvent.setup();
    stubApi({
      "/api/plans": [{ body: plans }],
      "/api/payments": [noPayments],
      "/api/payments/service-time": [noChanges],
      "/api/payments/checkout": [{ status: 503, body: { error: { code: "unavailable", message: "x" } } }],
    });
    renderAt("/payment");
    await user.click(await screen.findByRole("button", { name: "Pay $39.99 for 7 days" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Couldn't start payment process");
    expect(assign).not.toHaveBeenCalled();
    await setLanguage("es");
    expect(await screen.findByRole("alert")).toHaveTextContent("No se pudo iniciar el proceso de pago");
  });

  it("shows the payment's state from our record after the checkout, and reloads the driver on success", async () => {
    stubApi({
      "/api/plans": [{ body: plans }],
      "/api/payments": [noPayments],
      "/api/payments/service-time": [noChanges],
      "/api/payments/5": [
        { body: { payment: { id: 5, status: "successful", days: 7, amountCents: 3999, refundedCents: 0, failureCode: null, expirationAt: NOW + 10 * DAY } } },
      ],
    });
    const { value } = renderAt("/payment?payment=5");
    expect(await screen.findByText("Payment successful.")).toBeInTheDocument();
    expect(screen.getByText("7 days were added; your service runs until 20/06/26.")).toBeInTheDocument();
    await waitFor(() => expect(value.reloadUser).toHaveBeenCalledTimes(1));
  });

  it("coming back without paying ends the checkout, then says the payment failed and why", async () => {
    const calls = stubApi({
      "/api/plans": [{ body: plans }],
      "/api/payments": [noPayments],
      "/api/payments/service-time": [noChanges],
      "/api/payments/6": [
        { body: { payment: { id: 6, status: "processing", days: 7, amountCents: 3999, refundedCents: 0, failureCode: null, expirationAt: null } } },
      ],
      "/api/payments/6/cancel": [
        { body: { payment: { id: 6, status: "failed", days: 7, amountCents: 3999, refundedCents: 0, failureCode: "canceled", expirationAt: null } } },
      ],
    });
    renderAt("/payment?payment=6&canceled=1");
    expect(await screen.findByText("You left the checkout without paying.", { exact: false })).toBeInTheDocument();
    expect(calls.filter((c) => c.path === "/api/payments/6/cancel" && c.method === "POST")).toHaveLength(1);
  });
});

describe("/payment: the service-time ledger", () => {
  const entry = (id: number, kind: string, days: number, expirationAfter: number) => ({
    id,
    kind,
    days,
    deltaMs: days * DAY,
    expirationBefore: expirationAfter - days * DAY,
    expirationAfter,
    paymentId: null,
    invitationId: null,
    reason: null,
    actor: null,
    createdAt: NOW,
  });

  it("names every change, a free week taken back and a dispute included, in both languages", async () => {
    const disputed = {
      id: 9,
      userId: 1,
      payerId: 1,
      payerName: null,
      days: 7,
      amountCents: 3999,
      refundedCents: 0,
      disputeStatus: "open",
      disputedCents: 3999,
      status: "successful",
      failureCode: null,
      createdAt: NOW,
    };
    stubApi({
      "/api/plans": [{ body: plans }],
      "/api/payments": [
        {
          body: {
            ...noPayments.body,
            total: 1,
            rows: [disputed],
            totals: { grossCents: 3999, refundedCents: 0, disputedCents: 3999, netCents: 0, daysSold: 7 },
          },
        },
      ],
      "/api/payments/service-time": [
        {
          body: {
            total: 3,
            page: 1,
            pageSize: 20,
            rows: [entry(3, "free_week_reversed", -7, NOW + 3 * DAY), entry(2, "dispute", -7, NOW + 10 * DAY), entry(1, "free_week", 7, NOW + 17 * DAY)],
          },
        },
      ],
    });
    renderAt("/payment");
    expect(await screen.findByText("Free week taken back (the friend's payment was refunded or disputed)")).toBeInTheDocument();
    expect(screen.getByText("Payment disputed")).toBeInTheDocument();
    expect(screen.getByText("Free week (a friend paid)")).toBeInTheDocument();
    // The disputed payment in the history.
    expect(await screen.findByText("Disputed")).toBeInTheDocument();
    await setLanguage("es");
    expect(await screen.findByText("Semana gratis retirada (el pago del amigo fue reembolsado o disputado)")).toBeInTheDocument();
    expect(screen.getByText("Pago disputado")).toBeInTheDocument();
    expect(screen.getByText("En disputa")).toBeInTheDocument();
  });
});

describe("/flex/invite", () => {
  const invitations = {
    total: 1,
    page: 1,
    pageSize: 20,
    rows: [{ id: 1, phoneNumber: "+13055550199", invitedAt: NOW, via: "sms", state: "free_week" }],
    summary: { invited: 0, registered: 0, paid: 0, free_week: 1, freeWeeksEarned: 1, remainingToday: 19 },
    inviteLink: "https://app.test/register?ref=ABCD2345",
  };

  it("prefills the number from the address, shows each invitation's state, and words a refusal", async () => {
    const user = userEvent.setup();
    stubApi({
      "/api/invitations": [{ body: invitations }, { status: 409, body: { error: { code: "conflict", message: "x", details: { reason: "already_invited" } } } }],
    });
    renderAt("/flex/invite/%2B13055550142");
    expect(await screen.findByText("Free week earned")).toBeInTheDocument();
    expect(screen.getByDisplayValue("https://app.test/register?ref=ABCD2345")).toBeInTheDocument();
    const phone = screen.getByLabelText("Your friend's phone number");
    expect(phone).toHaveValue("+1 (305) 555-0142");
    expect(phone).toHaveAccessibleDescription("You can send 19 more invitations today.");
    await user.click(screen.getByRole("button", { name: "Send invitation" }));
    await waitFor(() => expect(screen.getByLabelText("Your friend's phone number")).toHaveAccessibleDescription(/You already invited this number/));
  });

  it("answers every invitation with the same words, whatever the number turns out to be", async () => {
    const user = userEvent.setup();
    const invitation = { invitation: { id: 2, phoneNumber: "+13055550142", invitedAt: NOW, state: "invited" } };
    for (const [language, words] of [
      ["en", "Invitation to +1 (305) 555-0142 taken. If the number can receive our texts, it's on its way."],
      ["es", "Invitación a +1 (305) 555-0142 recibida. Si el número puede recibir nuestros mensajes, va en camino."],
    ] as const) {
      await setLanguage(language);
      const calls = stubApi({ "/api/invitations": [{ body: invitations }, { status: 201, body: invitation }, { body: invitations }] });
      renderAt("/flex/invite/%2B13055550142", {}, true);
      await user.click(await screen.findByRole("button", { name: language === "en" ? "Send invitation" : "Enviar invitación" }));
      expect(await screen.findByText(words)).toBeInTheDocument();
      expect(calls.filter((c) => c.method === "POST")).toEqual([expect.objectContaining({ path: "/api/invitations", body: { phoneNumber: "+13055550142" } })]);
      cleanup();
    }
  });
});
