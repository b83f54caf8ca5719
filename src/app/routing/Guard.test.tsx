import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { HttpResponse, http } from "msw";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { IdClaims } from "../../shared/auth";
import { setLanguage } from "../i18n";
import { type SessionValue, StaticSessionProvider, signedOutSession, type User } from "../lib/session";
import { patchRoutesOnNavigation, routes } from "../router";
import { apiServer } from "../test/api-server";
import { type ApiCall, aDriver, renderRoutes, signedIn, stubApi } from "../test/render";
import { forgetResends } from "./Guard";

// The real route table under a fixed session: where does each kind of person end up?

const claims: IdClaims = { sub: "7", sid: "s7", phone_number: "+13055550123", phone_number_verified: true, app: "flex", is_admin: false, exp: 4_000_000_000 };
const driver = aDriver();

function session(user: Partial<User> | null, over: Partial<SessionValue> = {}, claimsOver: Partial<IdClaims> = {}): SessionValue {
  return { ...signedIn(driver), claims: { ...claims, ...claimsOver }, user: user === null ? null : { ...driver, ...user }, ...over };
}

function renderAt(path: string, value: SessionValue) {
  return renderRoutes(routes, { path, session: value, patchRoutesOnNavigation });
}

async function landsOn(router: ReturnType<typeof renderAt>, pathname: string, search = "") {
  await waitFor(() => expect(router.state.location.pathname).toBe(pathname));
  expect(router.state.location.search).toBe(search);
}

let calls: ApiCall[];
// Every page's footer reads the running versions (/api/status/health) whenever it renders; the
// routing's own requests are the rest.
const routingCalls = () => calls.filter((call) => !call.path.startsWith("/api/status/"));
const answerEverything = (status: number, code: string, message: string) =>
  apiServer.use(http.all("*", () => HttpResponse.json({ error: { code, message } }, { status })));
beforeEach(async () => {
  forgetResends();
  await setLanguage("en");
  // The resend a guard makes; any call a landed page makes (its plans, its lists) finds nothing.
  calls = stubApi({ "/api/auth/resend-code": { body: { codeDelivery: { destination: "+1***0123" } } } });
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  localStorage.clear();
  sessionStorage.clear();
});

describe("post-sign-in routing from /login, rule by rule", () => {
  it("1. without a session a driver screen sends the visitor to /", async () => {
    const router = renderAt("/flex/dashboard", signedOutSession);
    await landsOn(router, "/");
    expect(await screen.findByRole("heading", { name: "Better blocks, without the refresh" })).toBeInTheDocument();
  });

  it("2. an unverified phone: a code is resent, then /confirm-account with the phone number", async () => {
    const value = session(null, {}, { phone_number_verified: false });
    const router = renderAt("/login", value);
    await landsOn(router, "/confirm-account");
    // Only the resend counts: the frame may also read the health headers for the version line.
    const resends = calls.filter((call) => call.path === "/api/auth/resend-code");
    expect(resends).toHaveLength(1);
    expect(resends[0]!.body).toEqual({ phoneNumber: "+13055550123", app: "flex" });
    expect(router.state.location.state).toMatchObject({ phoneNumber: "+13055550123", app: "flex" });
    expect(await screen.findByText(/We sent a 6-digit code to \+1 \(305\) 555-0123/)).toBeInTheDocument();
    expect(screen.getByText("Confirm account to continue")).toBeInTheDocument();
  });

  it("2. a failed resend is only logged and the person still goes to /confirm-account", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    answerEverything(429, "rate_limited", "Slow down");
    const router = renderAt("/flex/dashboard", session(null, {}, { phone_number_verified: false }));
    await landsOn(router, "/confirm-account");
    expect(logged).toHaveBeenCalledWith("Could not resend the confirmation code", expect.anything());
  });

  it("3. no account connected → /flex/login, ahead of setup and standing", async () => {
    const router = renderAt("/login", session({ accountConnected: false, setupComplete: false, goodStanding: false }));
    await landsOn(router, "/flex/login");
    expect(await screen.findByRole("heading", { name: "Connect your account" })).toBeInTheDocument();
  });

  it("4. setup incomplete → /flex/settings, ahead of standing", async () => {
    const router = renderAt("/login", session({ setupComplete: false, goodStanding: false }));
    await landsOn(router, "/flex/settings");
  });

  it("5. not in good standing → /payment, keeping the current query string", async () => {
    const router = renderAt("/flex/dashboard?plan=weekly&utm=sms", session({ goodStanding: false }));
    await landsOn(router, "/payment", "?plan=weekly&utm=sms");
    expect(await screen.findByRole("heading", { name: "Payment" })).toBeInTheDocument();
  });

  it("6. otherwise → /flex/dashboard", async () => {
    const router = renderAt("/login", session({}));
    await landsOn(router, "/flex/dashboard");
    expect(await screen.findByRole("heading", { name: "Dashboard" })).toBeInTheDocument();
  });

  it("a signed-in administrator lands on /admin", async () => {
    // The dashboard asks for its figures; an answer of the wrong kind would only test the dashboard.
    answerEverything(500, "internal", "stub");
    const router = renderAt("/login", session({ isAdmin: true, accountConnected: false }, {}, { is_admin: true }));
    await landsOn(router, "/admin");
    expect(await screen.findByRole("heading", { name: "Admin dashboard" })).toBeInTheDocument();
  });

  it("no fetch happens for a routed driver beyond the resend case (the screen reached reads only its own data)", async () => {
    const router = renderAt("/login", session({ accountConnected: false }));
    await landsOn(router, "/flex/login");
    await screen.findByRole("heading", { name: "Connect your account" });
    const paths = routingCalls().map((call) => call.path);
    // The connect screen's own: the connection, and (Flex) the sign-in attempt it starts on opening.
    expect(paths.filter((p) => p !== "/api/driver/connection" && p !== "/api/driver/connection/sign-in")).toEqual([]);
  });
});

describe("guards", () => {
  it("tells a signed-in non-admin on any /admin screen that it is not for them, without moving", async () => {
    for (const path of ["/admin", "/admin/notifications", "/admin/users/3"]) {
      const router = renderAt(path, session({}));
      expect(await screen.findByRole("heading", { name: "No access" })).toBeInTheDocument();
      expect(screen.getByText(/Your account \(Dana Driver\) cannot open it/)).toBeInTheDocument();
      expect(screen.getByRole("link", { name: "Go to my home page" })).toHaveAttribute("href", "/");
      expect(router.state.location.pathname).toBe(path);
      // In the page's one main landmark, the skip link's target (the admin layout that holds it is not shown).
      expect(screen.getAllByRole("main")).toHaveLength(1);
      expect(screen.getByRole("main")).toHaveAttribute("id", "main");
      expect(screen.getByRole("main")).toContainElement(screen.getByRole("heading", { name: "No access" }));
      cleanup();
    }
  });

  it("sends a visitor without a session from /admin and /profile to /", async () => {
    await landsOn(renderAt("/admin/tools", signedOutSession), "/");
    await landsOn(renderAt("/profile", signedOutSession), "/");
  });

  it("resumes a deep link after sign-in: a signed-out admin opening /admin/users/42 lands there", async () => {
    await landsOn(renderAt("/admin/users/42?tab=audit", signedOutSession), "/");
    expect(sessionStorage.getItem("bp.resume")).toBe("/admin/users/42?tab=audit");
    cleanup();
    const router = renderAt("/login", session({ isAdmin: true }, {}, { is_admin: true }));
    await landsOn(router, "/admin/users/42", "?tab=audit");
    expect(sessionStorage.getItem("bp.resume")).toBeNull();
  });

  it("does not resume a page whose session ended there (signing out from /profile)", async () => {
    const signedInSession = session({});
    const router = createMemoryRouter(routes, { initialEntries: ["/profile"], patchRoutesOnNavigation });
    const { rerender } = render(
      <StaticSessionProvider value={signedInSession}>
        <RouterProvider router={router} />
      </StaticSessionProvider>,
    );
    await screen.findByRole("heading", { name: "My profile" });
    rerender(
      <StaticSessionProvider value={signedOutSession}>
        <RouterProvider router={router} />
      </StaticSessionProvider>,
    );
    await landsOn(router, "/");
    expect(sessionStorage.getItem("bp.resume")).toBeNull();
  });

  it("a resumed deep link still goes through its own guard", async () => {
    await landsOn(renderAt("/flex/calendar", signedOutSession), "/");
    cleanup();
    await landsOn(renderAt("/login", session({ setupComplete: false })), "/flex/settings");
  });

  it("keeps the optional-redirect screens reachable for a driver who would be routed elsewhere", async () => {
    const worst = session({ accountConnected: false, setupComplete: false, goodStanding: false });
    for (const path of ["/faqs", "/terms", "/privacy", "/contact", "/payment", "/profile", "/profile/edit", "/profile/password"]) {
      const router = renderAt(path, worst);
      await waitFor(() => expect(document.querySelector("h1")).not.toBeNull());
      expect(router.state.location.pathname).toBe(path);
    }
  });

  it("lets /flex/settings through once an account is connected", async () => {
    const router = renderAt("/flex/settings", session({ setupComplete: false, goodStanding: false }));
    expect(await screen.findByRole("heading", { name: "Filters" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/flex/settings");
  });

  it("shows a driver page's heading and a loading view while the session or the user loads", async () => {
    const first = renderAt("/flex/dashboard", { ...signedOutSession, loading: true });
    await waitFor(() => expect(first.state.initialized).toBe(true));
    // The route's lazy module may still be loading on a busy machine: wait for the page's own view.
    expect(await screen.findByRole("heading", { level: 1, name: "Dashboard" })).toBeInTheDocument();
    expect(screen.getByRole("status")).toHaveTextContent("Loading…");
    expect(first.state.location.pathname).toBe("/flex/dashboard");
    cleanup();
    const second = renderAt("/profile", session(null, { userLoading: true }));
    await waitFor(() => expect(second.state.initialized).toBe(true));
    expect(await screen.findByRole("heading", { level: 1, name: "My profile" })).toBeInTheDocument();
    expect(screen.getByRole("status")).toHaveTextContent("Loading…");
  });

  it("shows the splash while the session loads on a page it may send the visitor away from", async () => {
    // A guest page with a stored session is about to send the visitor on; the admin console has a frame of its own.
    for (const path of ["/login", "/admin/users"]) {
      const router = renderAt(path, { ...signedOutSession, loading: true });
      await waitFor(() => expect(router.state.initialized).toBe(true));
      expect(screen.getByRole("status", { name: "Loading" })).toBeInTheDocument();
      expect(screen.queryByRole("heading", { level: 1 })).toBeNull();
      cleanup();
    }
  });

  it("says the user could not be loaded, with Try again and Sign out", async () => {
    const user = userEvent.setup();
    const reloadUser = vi.fn(async () => {});
    renderAt("/flex/dashboard", session(null, { error: new Error("offline"), reloadUser }));
    expect(await screen.findByRole("heading", { name: "Couldn't load user" })).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Try again" }));
    expect(reloadUser).toHaveBeenCalled();
    expect(screen.getByRole("button", { name: "Sign out" })).toBeInTheDocument();
  });

  it("offline, says the account loads once back online, and reads it again as soon as the network returns", async () => {
    const online = vi.spyOn(navigator, "onLine", "get").mockReturnValue(false);
    const reloadUser = vi.fn(async () => {});
    renderAt("/flex/dashboard", session(null, { error: new Error("Failed to fetch"), reloadUser }));
    expect(await screen.findByRole("heading", { name: "Your account loads once you are back online" })).toBeInTheDocument();
    expect(screen.queryByRole("heading", { name: "Couldn't load user" })).not.toBeInTheDocument();
    expect(reloadUser).not.toHaveBeenCalled();
    online.mockReturnValue(true);
    act(() => void window.dispatchEvent(new Event("online")));
    await waitFor(() => expect(reloadUser).toHaveBeenCalledTimes(1));
  });

  it("offline, in Spanish too", async () => {
    await setLanguage("es");
    vi.spyOn(navigator, "onLine", "get").mockReturnValue(false);
    renderAt("/flex/dashboard", session(null, { error: new Error("Failed to fetch") }));
    expect(await screen.findByRole("heading", { name: "Tu cuenta se carga en cuanto vuelvas a tener conexión" })).toBeInTheDocument();
  });

  it("shows the expiry-today notice on a driver screen until dismissed", async () => {
    const user = userEvent.setup();
    const dismissExpiryNotice = vi.fn();
    renderAt("/flex/dashboard", session({}, { expiresToday: true, dismissExpiryNotice }));
    expect(await screen.findByText("Your service expires today. Renew it to keep catching blocks.")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Renew now" })).toHaveAttribute("href", "/payment");
    await user.click(screen.getByRole("button", { name: "Dismiss" }));
    expect(dismissExpiryNotice).toHaveBeenCalled();
  });

  it("shows the routing screens in Spanish too", async () => {
    await setLanguage("es");
    renderAt("/flex/dashboard", session(null, { error: new Error("offline") }));
    expect(await screen.findByRole("heading", { name: "No se pudo cargar el usuario" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Reintentar" })).toBeInTheDocument();
  });
});
