import { cleanup, render, screen, within } from "@testing-library/react";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLanguage } from "../i18n";
import { type SessionValue, StaticSessionProvider, signedOutSession, startingSession } from "../lib/session";
import { aDriver, signedIn } from "../test/render";
import SiteFooter from "./SiteFooter";

function renderFooter(session: SessionValue) {
  const router = createMemoryRouter([{ path: "*", element: <SiteFooter /> }], { initialEntries: ["/faqs"] });
  render(
    <StaticSessionProvider value={session}>
      <RouterProvider router={router} />
    </StaticSessionProvider>,
  );
  return within(screen.getByRole("navigation", { name: "Product" }));
}

beforeEach(async () => {
  await setLanguage("en");
  vi.stubGlobal(
    "fetch",
    vi.fn(async () => new Response("{}", { status: 404 })),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("the footer's account links", () => {
  it("offer a signed-out visitor an account and sign-in", () => {
    const product = renderFooter(signedOutSession);
    expect(product.getByRole("link", { name: "Create account" })).toHaveAttribute("href", "/register");
    expect(product.getByRole("link", { name: "Sign in" })).toHaveAttribute("href", "/login");
  });

  it("offer a signed-in driver the dashboard, and an administrator the console, never Sign in", () => {
    let product = renderFooter(signedIn(aDriver()));
    expect(product.getByRole("link", { name: "Dashboard" })).toHaveAttribute("href", "/flex/dashboard");
    expect(product.queryByRole("link", { name: "Sign in" })).toBeNull();
    cleanup();
    product = renderFooter(signedIn(aDriver({ isAdmin: true })));
    expect(product.getByRole("link", { name: "Admin console" })).toHaveAttribute("href", "/admin");
    expect(product.queryByRole("link", { name: "Create account" })).toBeNull();
  });

  it("offer neither while the session loads", () => {
    const product = renderFooter(startingSession);
    expect(product.queryByRole("link", { name: "Sign in" })).toBeNull();
    expect(product.queryByRole("link", { name: "Dashboard" })).toBeNull();
    expect(product.getByRole("link", { name: "How it works" })).toBeInTheDocument();
  });
});
