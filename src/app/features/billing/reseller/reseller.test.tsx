import { act, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLanguage } from "../../../i18n";
import { aDriver, renderRoutes, signedIn, stubApi } from "../../../test/render";
import ResellerPage from "./ResellerPage";

const none = { body: { reseller: { status: "none" } } };
const applied = { body: { reseller: { status: "applied", appliedAt: new Date(2026, 5, 10).getTime() } } };
const approved = {
  body: {
    reseller: {
      status: "approved",
      appliedAt: 0,
      referralCode: "RESELL42",
      commissionPercent: 20,
      stripeExpressId: null,
      detailsSubmitted: false,
      payoutsEnabled: false,
      clients: 0,
      totals: { owedCents: 1250, paidCents: 0, reversedCents: 0 },
    },
  },
};
const emptyPage = { body: { total: 0, page: 1, pageSize: 20, rows: [] } };

function renderAt(path = "/flex/reseller") {
  renderRoutes([{ path: "/flex/reseller", Component: ResellerPage }], { path, session: signedIn(aDriver()), toaster: true });
}

let assign: ReturnType<typeof vi.fn>;
beforeEach(async () => {
  await setLanguage("en");
  assign = vi.fn();
  vi.stubGlobal("location", { ...window.location, href: window.location.href, assign, origin: "https://app.test" });
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("/flex/reseller: the application", () => {
  it("asks for the terms before sending, then sends the message trimmed and shows the application under review", async () => {
    const calls = stubApi({ "/api/reseller": [none, applied], "/api/reseller/apply": [{ body: { reseller: { status: "applied" } } }] });
    renderAt();
    const apply = await screen.findByRole("button", { name: "Apply" });
    await userEvent.type(screen.getByLabelText("Tell us about your drivers (optional)"), "  Twelve drivers in Miami  ");
    await userEvent.click(apply);
    expect(await screen.findByRole("alert")).toHaveTextContent("Accept the reseller terms to apply.");
    expect(screen.getByRole("checkbox")).toHaveAttribute("aria-invalid", "true");
    expect(calls.filter((c) => c.path === "/api/reseller/apply")).toEqual([]);

    await userEvent.click(screen.getByRole("checkbox"));
    await userEvent.click(apply);
    expect(await screen.findByText("Application sent.")).toBeInTheDocument();
    expect(calls.filter((c) => c.path === "/api/reseller/apply")).toEqual([
      { method: "POST", path: "/api/reseller/apply", body: { acceptTerms: true, message: "Twelve drivers in Miami" } },
    ]);
    expect(await screen.findByRole("status")).toHaveTextContent("is being reviewed");
  });

  it("sends no message when none was written, and says so when the application could not be sent", async () => {
    const calls = stubApi({ "/api/reseller": [none], "/api/reseller/apply": [{ status: 500, body: { error: { code: "internal", message: "x" } } }] });
    renderAt();
    await userEvent.click(await screen.findByRole("checkbox"));
    await userEvent.click(screen.getByRole("button", { name: "Apply" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Couldn't send your application. Try again in a moment.");
    expect(calls.filter((c) => c.path === "/api/reseller/apply").map((c) => c.body)).toEqual([{ acceptTerms: true }]);
    expect(screen.getByRole("button", { name: "Apply" })).toBeEnabled();
  });
});

describe("/flex/reseller: approved", () => {
  it("shows the code and sign-up link, and starts the payout setup", async () => {
    const calls = stubApi({
      "/api/reseller": [approved],
      "/api/reseller/clients": [emptyPage],
      "/api/reseller/commissions": [emptyPage],
      "/api/reseller/onboarding": [{ body: { url: "https://connect.example/onboarding/1" } }],
    });
    renderAt();
    expect(await screen.findByDisplayValue("RESELL42")).toBeInTheDocument();
    expect(screen.getByDisplayValue("https://app.test/register?ref=RESELL42")).toBeInTheDocument();
    expect(screen.getByText("$12.50")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Set up payouts" }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith("https://connect.example/onboarding/1"));
    expect(calls.filter((c) => c.method === "POST").map((c) => c.path)).toEqual(["/api/reseller/onboarding"]);
  });

  it("says a payout setup refused for too many attempts (429) as such, in English and Spanish", async () => {
    const limited = {
      status: 429,
      body: {
        error: { code: "rate_limited", message: "Too many attempts. Try again later", details: { reason: "too_many_attempts", retryAfterSeconds: 1800 } },
      },
    };
    stubApi({
      "/api/reseller": [approved],
      "/api/reseller/clients": [emptyPage],
      "/api/reseller/commissions": [emptyPage],
      "/api/reseller/onboarding": [limited, limited],
    });
    renderAt();
    await userEvent.click(await screen.findByRole("button", { name: "Set up payouts" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Too many attempts. Wait a few minutes and try again.");
    expect(assign).not.toHaveBeenCalled();
    await act(() => setLanguage("es"));
    await userEvent.click(await screen.findByRole("button", { name: "Configurar depósitos" }));
    await waitFor(() => expect(screen.getByRole("alert")).toHaveTextContent("Demasiados intentos. Espera unos minutos e inténtalo de nuevo."));
  });

  it("reads the account back on the way back from the payout setup, once", async () => {
    const calls = stubApi({
      "/api/reseller": [approved],
      "/api/reseller/clients": [emptyPage],
      "/api/reseller/commissions": [emptyPage],
      "/api/reseller/onboarding/refresh": [{ body: { payoutsEnabled: true } }],
    });
    renderAt("/flex/reseller?onboarding=return");
    await waitFor(() => expect(calls.filter((c) => c.path === "/api/reseller/onboarding/refresh")).toHaveLength(1));
    await waitFor(() => expect(calls.filter((c) => c.path === "/api/reseller").length).toBeGreaterThanOrEqual(2));
    expect(calls.filter((c) => c.path === "/api/reseller/onboarding/refresh")).toHaveLength(1);
  });
});
