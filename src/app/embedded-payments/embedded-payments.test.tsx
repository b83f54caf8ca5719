import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLanguage } from "../i18n";
import { renderRoutes, stubApi } from "../test/render";
import LocalCheckoutPage, { formatExpiry, groupCardNumber } from "./LocalCheckoutPage";
import LocalOnboardingPage from "./LocalOnboardingPage";

const NOW = new Date(2026, 5, 10, 12).getTime();

function renderAt(path: string) {
  renderRoutes(
    [
      { path: "/local-stripe/checkout/:id", Component: LocalCheckoutPage },
      { path: "/local-stripe/onboarding/:id", Component: LocalOnboardingPage },
    ],
    { path },
  );
}

let assign: ReturnType<typeof vi.fn>;
beforeEach(async () => {
  await setLanguage("en");
  assign = vi.fn();
  vi.stubGlobal("location", { ...window.location, href: window.location.href, assign });
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("the local checkout", () => {
  const session = {
    session: {
      id: "cs_local_0123456789abcdef01234567",
      status: "open",
      amountCents: 3999,
      currency: "usd",
      productName: "Blockpilot Flex: 7 days",
      description: "7 days of service for Dana",
      customerEmail: "dana@example.com",
      expiresAt: NOW + 3_600_000,
      cancelUrl: "https://app.test/payment?payment=5&canceled=1",
      successUrl: null,
    },
  };

  it("formats the card as typed, says why a card was declined, and leaves for the app when paid", async () => {
    expect(groupCardNumber("4242424242424242")).toBe("4242 4242 4242 4242");
    expect(formatExpiry("1240")).toBe("12 / 40");
    const user = userEvent.setup();
    const calls = stubApi({
      [`/api/local-stripe/checkout/${session.session.id}`]: [{ body: session }],
      [`/api/local-stripe/checkout/${session.session.id}/pay`]: [
        { status: 422, body: { error: { code: "unprocessable", message: "x", details: { code: "card_declined", declineCode: "insufficient_funds" } } } },
        { body: { status: "complete", redirectUrl: "https://app.test/payment?payment=5" } },
      ],
    });
    renderAt(`/local-stripe/checkout/${session.session.id}`);
    await user.type(await screen.findByLabelText("Card number"), "4000000000009995");
    expect(screen.getByLabelText("Card number")).toHaveValue("4000 0000 0000 9995");
    await user.type(screen.getByLabelText("Expiration (MM / YY)"), "1240");
    await user.type(screen.getByLabelText("CVC"), "123");
    await user.click(screen.getByRole("button", { name: "Pay $39.99" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Your card has insufficient funds.");
    await user.click(screen.getByRole("button", { name: "Pay $39.99" }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith("https://app.test/payment?payment=5"));
    expect(calls.filter((c) => c.method === "POST")[0]!.body).toEqual({ number: "4000 0000 0000 9995", expiry: "12 / 40", cvc: "123", name: "" });
  });

  it("checks the card before sending it", async () => {
    const user = userEvent.setup();
    const calls = stubApi({ [`/api/local-stripe/checkout/${session.session.id}`]: [{ body: session }] });
    renderAt(`/local-stripe/checkout/${session.session.id}`);
    await user.click(await screen.findByRole("button", { name: "Pay $39.99" }));
    expect(screen.getByLabelText("Card number")).toHaveAccessibleDescription("Your card number is invalid.");
    expect(screen.getByLabelText("CVC")).toHaveAccessibleDescription("Your card's security code is incomplete.");
    expect(calls.filter((c) => c.method === "POST")).toHaveLength(0);
  });

  it("marks the field the server finds wrong, and says when the checkout cannot be reached", async () => {
    const user = userEvent.setup();
    const calls = stubApi({
      [`/api/local-stripe/checkout/${session.session.id}`]: [{ body: session }],
      [`/api/local-stripe/checkout/${session.session.id}/pay`]: [
        { status: 400, body: { error: { code: "validation_failed", message: "x", details: [{ path: "expiry", message: "Your card has expired." }] } } },
        { status: 503, body: { error: { code: "unavailable", message: "x" } } },
      ],
    });
    renderAt(`/local-stripe/checkout/${session.session.id}`);
    await user.type(await screen.findByLabelText("Card number"), "4242424242424242");
    await user.type(screen.getByLabelText("Expiration (MM / YY)"), "0120");
    await user.type(screen.getByLabelText("CVC"), "123");
    await user.click(screen.getByRole("button", { name: "Pay $39.99" }));
    await waitFor(() =>
      expect(screen.getByLabelText("Expiration (MM / YY)")).toHaveAccessibleDescription("Your card's expiration date is incomplete or in the past."),
    );
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Pay $39.99" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("The payment could not be processed. Try again.");
    expect(screen.getByRole("button", { name: "Pay $39.99" })).toBeEnabled();
    expect(calls.filter((c) => c.method === "POST")).toHaveLength(2);
    expect(assign).not.toHaveBeenCalled();
  });
});

describe("the local payout setup", () => {
  const link = { link: { account: "acct_local_0123456789abcdef01234567", email: "rita@example.com", expiresAt: NOW + 3_600_000, refreshUrl: "x" } };
  const path = "/local-stripe/onboarding/link_local_0123456789abcdef01234567";

  it("says when the setup could not be finished, and returns to the app once it is", async () => {
    const user = userEvent.setup();
    const calls = stubApi({
      [`/api${path}`]: [{ body: link }],
      [`/api${path}/complete`]: [
        { status: 500, body: { error: { code: "internal", message: "x" } } },
        { body: { redirectUrl: "https://app.test/flex/reseller?onboarding=return" } },
      ],
    });
    renderAt(path);
    await user.type(await screen.findByLabelText("Legal name"), "Rita Reseller");
    await user.click(screen.getByRole("button", { name: "Agree and submit" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Couldn't finish the setup. Try again.");
    await user.click(screen.getByRole("button", { name: "Agree and submit" }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith("https://app.test/flex/reseller?onboarding=return"));
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Agree and submit" })).toBeDisabled();
    expect(calls.filter((c) => c.method === "POST").map((c) => c.body)).toEqual([undefined, undefined]);
  });
});
