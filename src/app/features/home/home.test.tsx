import { act, render, screen, within } from "@testing-library/react";
import { createMemoryRouter, RouterProvider } from "react-router";
import { SWRConfig } from "swr";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { IdClaims } from "../../../shared/auth";
import { setLanguage } from "../../i18n";
import { type SessionValue, StaticSessionProvider, signedOutSession, type User } from "../../lib/session";
import { mockApi } from "../../test/admin-harness";
import HomePage from "./HomePage";
import { judgedSampleOffers } from "./sample-offers";

const claims = (isAdmin: boolean): IdClaims => ({
  sub: "7",
  sid: "family-7",
  phone_number: "+13055550102",
  phone_number_verified: true,
  app: "flex",
  is_admin: isAdmin,
  exp: 9e9,
});

function renderHome(session: SessionValue = signedOutSession, path = "/") {
  const router = createMemoryRouter(
    [
      { path: "/", element: <HomePage signIn={<form aria-label="Sign-in form" />} /> },
      { path: "/flex/dashboard", element: <h1>Driver dashboard</h1> },
      { path: "/admin", element: <h1>Console</h1> },
    ],
    { initialEntries: [path] },
  );
  const view = render(
    <SWRConfig value={{ provider: () => new Map(), dedupingInterval: 0 }}>
      <StaticSessionProvider value={session}>
        <RouterProvider router={router} />
      </StaticSessionProvider>
    </SWRConfig>,
  );
  const rerender = (next: SessionValue) =>
    view.rerender(
      <SWRConfig value={{ provider: () => new Map(), dedupingInterval: 0 }}>
        <StaticSessionProvider value={next}>
          <RouterProvider router={router} />
        </StaticSessionProvider>
      </SWRConfig>,
    );
  return { router, rerender };
}

const plans = {
  path: "/api/plans",
  reply: () => ({
    body: {
      Items: [
        { id: 1, app: "flex", name: "1 week", days: 7, priceCents: 3999 },
        { id: 2, app: "flex", name: "2 weeks", days: 14, priceCents: 7499 },
      ],
      currency: "usd",
    },
  }),
};

beforeEach(async () => {
  await setLanguage("en");
});
afterEach(() => vi.unstubAllGlobals());

describe("landing page", () => {
  it("shows what it is with sign-in beside it, then the sections below", async () => {
    mockApi([plans]);
    renderHome();
    expect(screen.getByRole("heading", { level: 1, name: "Better blocks, without the refresh" })).toBeInTheDocument();
    expect(screen.getByRole("form", { name: "Sign-in form" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Create account" })).toHaveAttribute("href", "/register");
    // The sections' chunk loads after the first paint.
    expect(await screen.findByRole("heading", { name: "How it works" }, { timeout: 10_000 })).toBeInTheDocument();
    for (const name of ["See exactly why a block was taken or not", "Plans and prices", "Help when you need it", "Questions drivers ask"])
      expect(screen.getByRole("heading", { name })).toBeInTheDocument();
  });

  it("lists the plans from the plans API with their price per week", async () => {
    mockApi([plans]);
    renderHome();
    expect(await screen.findByRole("heading", { name: "7 days of service" })).toBeInTheDocument();
    expect(screen.getByText("$39.99")).toBeInTheDocument();
    expect(screen.getByText("$37.50 a week")).toBeInTheDocument();
    expect(screen.getByText(/you get 7 days of service free/)).toBeInTheDocument();
  });

  it("says how plans work, without made-up prices, when the plans API does not answer", async () => {
    mockApi([]);
    renderHome();
    expect(await screen.findByText(/Prices are shown when you pay/)).toBeInTheDocument();
    expect(within(screen.getByRole("region", { name: "Plans and prices" })).queryByText(/\$\d/)).toBeNull();
  });

  it("draws the dashboard preview from evaluateOffer: won, disliked with each reason, gone", async () => {
    mockApi([plans]);
    renderHome();
    const table = await screen.findByRole("table", { name: "Sample offers judged against the sample filters" });
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows).toHaveLength(judgedSampleOffers().length);
    expect(rows[0]).toHaveTextContent("Won");
    expect(rows[1]).toHaveTextContent("Disliked");
    expect(rows[1]).toHaveTextContent("Below your minimum block pay");
    expect(rows[1]).toHaveTextContent("Starts too soon to get there");
    expect(rows[2]).toHaveTextContent("Outside your hours");
    expect(rows[3]).toHaveTextContent("Station not in your list");
    expect(rows[4]).toHaveTextContent("Gone");
  });

  it("offers a signed-in driver their dashboard instead of the sign-in form", () => {
    mockApi([plans]);
    renderHome({ ...signedOutSession, claims: claims(false), user: { name: "Diego Driver" } as User });
    expect(screen.queryByRole("form", { name: "Sign-in form" })).toBeNull();
    expect(screen.getByRole("heading", { name: "Welcome back, Diego Driver" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Go to your dashboard" })).toHaveAttribute("href", "/flex/dashboard");
  });

  it("offers an administrator the console", () => {
    mockApi([plans]);
    renderHome({ ...signedOutSession, claims: claims(true) });
    expect(screen.getByRole("link", { name: "Open the admin console" })).toHaveAttribute("href", "/admin");
  });

  it("goes on to the dashboard once someone signs in on the page", async () => {
    mockApi([plans]);
    const { rerender } = renderHome();
    await act(async () => rerender({ ...signedOutSession, claims: claims(false) }));
    expect(await screen.findByRole("heading", { name: "Driver dashboard" })).toBeInTheDocument();
  });

  it("keeps the query string on the way from a sign-in on the page, so rule 5 carries it to /payment", async () => {
    mockApi([plans]);
    const { router, rerender } = renderHome(signedOutSession, "/?plan=weekly&utm=sms");
    await act(async () => rerender({ ...signedOutSession, claims: claims(false) }));
    expect(await screen.findByRole("heading", { name: "Driver dashboard" })).toBeInTheDocument();
    // The dashboard's guard sends a driver not in good standing to `/payment${search}` (Guard.test.tsx, rule 5).
    expect(router.state.location.search).toBe("?plan=weekly&utm=sms");
  });

  it("reads in Spanish", async () => {
    mockApi([plans]);
    renderHome();
    await act(() => setLanguage("es"));
    expect(screen.getByRole("heading", { level: 1, name: "Mejores bloques, sin refrescar" })).toBeInTheDocument();
    expect(await screen.findByRole("heading", { name: "Cómo funciona" })).toBeInTheDocument();
  });
});
