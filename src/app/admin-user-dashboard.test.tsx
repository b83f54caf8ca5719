import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { UserDetail } from "../shared/admin-users";
import UserDashboardPage from "./features/admin/users/UserDashboardPage";
import { DriverDashboard } from "./features/driver/DashboardPage";
import { setLanguage } from "./i18n";
import { mockApi, renderScreen, support } from "./test/admin-harness";

const driver = {
  id: 7,
  app: "flex",
  name: "Diego Driver",
  phone: "+13055550102",
  isAdmin: false,
  status: "stop",
} as unknown as UserDetail;

const offer = {
  id: 1,
  status: "disliked",
  stationId: "S1",
  stationName: "Doral Station",
  timeZone: "America/New_York",
  startsAt: Date.UTC(2031, 5, 2, 14),
  endsAt: Date.UTC(2031, 5, 2, 17),
  payCents: 4500,
  reasons: ["pay"],
  seenAt: Date.UTC(2031, 5, 2, 12),
  forfeitedAt: null,
  arrivedAt: null,
  canCheckIn: false,
  canForfeit: false,
  checkInAvailable: true,
  forfeitable: false,
};
const checkIn = { ...offer, id: 2, status: "won", reasons: [], stationName: "Hialeah Station", canCheckIn: true };

function stub({ user = driver, offers = [offer, checkIn], refuse = false, openings = [201] } = {}) {
  let state: "stopped" | "searching" = "stopped";
  const engine = () =>
    state === "stopped"
      ? { state: "stopped", reason: "driver" }
      : { state: "searching", stations: 1, until: Date.UTC(2031, 5, 2, 22), timeZone: "America/New_York", slowedUntil: null };
  // The opening's answers in turn (the last repeating): 201 recorded, 500 the audit row refused.
  const opened = [...openings];
  return mockApi([
    { path: "/api/admin/users/7", reply: () => ({ body: { user } }) },
    {
      method: "POST",
      path: "/api/admin/users/7/acting-for",
      reply: (call) => {
        const status = opened.length > 1 ? opened.shift()! : opened[0]!;
        return status === 201
          ? { status, body: { opened: (call.body as { view: string }).view } }
          : { status, body: { error: { code: "internal", message: "Something went wrong" } } };
      },
    },
    {
      path: "/api/admin/users/7/dashboard/engine",
      reply: () => ({ body: { engine: engine(), service: { expiresAt: Date.UTC(2031, 5, 9), goodStanding: true }, now: Date.UTC(2031, 5, 2, 12) } }),
    },
    {
      method: "POST",
      path: "/api/admin/users/7/dashboard/engine",
      reply: (call) => {
        if (refuse) return { status: 409, body: { error: { code: "conflict", message: "Your service has expired", details: { reason: "expired" } } } };
        state = (call.body as { on: boolean }).on ? "searching" : "stopped";
        return { body: { engine: engine() } };
      },
    },
    {
      path: "/api/admin/users/7/dashboard/offers",
      reply: () => ({ body: { total: offers.length, page: 1, pageSize: 20, counts: { won: 1, disliked: 1, gone: 0 }, filters: null, rows: offers } }),
    },
  ]);
}

const at = "/admin/users/7/dashboard";
const route = "/admin/users/:id/dashboard";

beforeEach(async () => {
  await setLanguage("en");
});
afterEach(() => vi.unstubAllGlobals());

// The page as the route table puts it together (routes.tsx): the admin's frame around the driver's dashboard.
describe("a driver's dashboard, acting for them", () => {
  it("shows their dashboard under the acting-for banner, read-only, with the way back", async () => {
    const api = stub();
    renderScreen(<UserDashboardPage Dashboard={DriverDashboard} />, { path: at, route, user: support });
    const banner = await screen.findByRole("note", { name: "Acting for Diego Driver (+1 (305) 555-0102)" });
    expect(within(banner).getByRole("link", { name: "Back to their page" })).toHaveAttribute("href", "/admin/users/7");
    expect(screen.getByRole("heading", { level: 1, name: "Diego Driver's dashboard" })).toBeInTheDocument();
    expect(await screen.findByText("Doral Station")).toBeInTheDocument();
    expect(screen.getByRole("switch", { name: /Search for blocks/ })).not.toBeChecked();
    // What only the driver does is left out: no "I've arrived" button, no filters or renew links.
    expect(screen.getByText("“I've arrived” is open")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "I've arrived" })).toBeNull();
    expect(screen.queryByRole("link", { name: "Edit filters" })).toBeNull();
    expect(screen.queryByRole("link", { name: "Renew" })).toBeNull();
    expect(screen.getByRole("link", { name: "Calendar" })).toHaveAttribute("href", "/flex/calendar/%2B13055550102");
    // Read through the admin's routes, never the driver's own.
    expect(api.calls.every((c) => c.url.pathname.startsWith("/api/admin/"))).toBe(true);
  });

  it("records the opening once, before any of the driver's data is read; the reads after it do not", async () => {
    const user = userEvent.setup();
    const api = stub();
    renderScreen(<UserDashboardPage Dashboard={DriverDashboard} />, { path: at, route, user: support });
    expect(await screen.findByText("Doral Station")).toBeInTheDocument();
    const paths = api.calls.map((c) => `${c.method} ${c.url.pathname}`);
    const opening = paths.indexOf("POST /api/admin/users/7/acting-for");
    expect(opening).toBeGreaterThanOrEqual(0);
    expect(paths.findIndex((p) => p.includes("/dashboard/"))).toBeGreaterThan(opening);
    expect(api.to("/api/admin/users/7/acting-for", "POST").map((c) => c.body)).toEqual([{ view: "dashboard" }]);
    // The engine is read again after a switch: no second opening.
    const reads = api.to("/api/admin/users/7/dashboard/engine").length;
    await user.click(screen.getByRole("switch", { name: /Search for blocks/ }));
    const dialog = await screen.findByRole("dialog");
    await user.type(within(dialog).getByLabelText(/Reason/), "Driver asked by phone");
    await user.click(within(dialog).getByRole("button", { name: "Turn on" }));
    await waitFor(() => expect(screen.getByRole("switch", { name: /Search for blocks/ })).toBeChecked());
    await waitFor(() => expect(api.to("/api/admin/users/7/dashboard/engine").length).toBeGreaterThan(reads));
    expect(api.to("/api/admin/users/7/acting-for", "POST")).toHaveLength(1);
  });

  it("shows nothing of the driver's when the opening cannot be recorded, until it can", async () => {
    const user = userEvent.setup();
    const api = stub({ openings: [500, 201] });
    renderScreen(<UserDashboardPage Dashboard={DriverDashboard} />, { path: at, route, user: support });
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Opening Diego Driver's screens could not be recorded in the audit log, so nothing of theirs is shown.");
    expect(screen.queryByText("Doral Station")).toBeNull();
    expect(api.calls.filter((c) => c.url.pathname.includes("/dashboard/"))).toEqual([]);
    await user.click(within(alert).getByRole("button", { name: "Try again" }));
    expect(await screen.findByText("Doral Station")).toBeInTheDocument();
    expect(api.to("/api/admin/users/7/acting-for", "POST")).toHaveLength(2);
  });

  it("turns the system on after a confirm that asks why, from the keyboard", async () => {
    const user = userEvent.setup();
    const api = stub();
    renderScreen(<UserDashboardPage Dashboard={DriverDashboard} />, { path: at, route, user: support });
    const toggle = await screen.findByRole("switch", { name: /Search for blocks/ });
    toggle.focus();
    await user.keyboard("{Enter}");
    const dialog = await screen.findByRole("dialog", { name: "Turn Diego Driver's system on?" });
    await user.click(within(dialog).getByRole("button", { name: "Turn on" }));
    expect(within(dialog).getByRole("alert")).toHaveTextContent("Say why, in a few words.");
    expect(api.to("/api/admin/users/7/dashboard/engine", "POST")).toHaveLength(0);
    await user.type(within(dialog).getByLabelText(/Reason/), "Driver asked by phone");
    await user.click(within(dialog).getByRole("button", { name: "Turn on" }));
    await waitFor(() => expect(api.to("/api/admin/users/7/dashboard/engine", "POST")[0]?.body).toEqual({ on: true, reason: "Driver asked by phone" }));
    await waitFor(() => expect(screen.getByRole("switch", { name: /Search for blocks/ })).toBeChecked());
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("cancelling changes nothing; a refusal is worded and keeps the dialog open", async () => {
    const user = userEvent.setup();
    const api = stub({ refuse: true });
    renderScreen(<UserDashboardPage Dashboard={DriverDashboard} />, { path: at, route, user: support });
    await user.click(await screen.findByRole("switch", { name: /Search for blocks/ }));
    let dialog = await screen.findByRole("dialog");
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    await waitFor(() => expect(screen.getByRole("switch", { name: /Search for blocks/ })).toBeEnabled());
    expect(api.to("/api/admin/users/7/dashboard/engine", "POST")).toHaveLength(0);

    await user.click(screen.getByRole("switch", { name: /Search for blocks/ }));
    dialog = await screen.findByRole("dialog");
    await user.type(within(dialog).getByLabelText(/Reason/), "Driver asked");
    await user.click(within(dialog).getByRole("button", { name: "Turn on" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("Stopped: service expired.");
  });

  it("says when the driver has no offers yet", async () => {
    stub({ offers: [] });
    renderScreen(<UserDashboardPage Dashboard={DriverDashboard} />, { path: at, route, user: support });
    expect(await screen.findByText(/No offers yet/)).toBeInTheDocument();
  });

  it("an administrator's account has no dashboard", async () => {
    stub({ user: { ...driver, isAdmin: true } });
    renderScreen(<UserDashboardPage Dashboard={DriverDashboard} />, { path: at, route, user: support });
    expect(await screen.findByRole("heading", { name: "Only drivers have a dashboard" })).toBeInTheDocument();
  });

  it("says when there is no such user", async () => {
    mockApi([{ path: "/api/admin/users/7", reply: () => ({ status: 404, body: { error: { code: "not_found", message: "No such user" } } }) }]);
    renderScreen(<UserDashboardPage Dashboard={DriverDashboard} />, { path: at, route, user: support });
    expect(await screen.findByRole("heading", { name: "User not found" })).toBeInTheDocument();
  });

  it("speaks Spanish", async () => {
    await setLanguage("es");
    stub();
    renderScreen(<UserDashboardPage Dashboard={DriverDashboard} />, { path: at, route, user: support });
    const banner = await screen.findByRole("note", { name: "Actuando por Diego Driver (+1 (305) 555-0102)" });
    expect(within(banner).getByRole("link", { name: "Volver a su página" })).toBeInTheDocument();
    expect(await screen.findByRole("switch", { name: /Buscar bloques/ })).toBeInTheDocument();
  });

  it("says in Spanish when the opening cannot be recorded", async () => {
    await setLanguage("es");
    stub({ openings: [500] });
    renderScreen(<UserDashboardPage Dashboard={DriverDashboard} />, { path: at, route, user: support });
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("No se pudo registrar la apertura de las pantallas de Diego Driver en el registro de auditoría");
    expect(within(alert).getByRole("button", { name: "Reintentar" })).toBeInTheDocument();
  });
});
