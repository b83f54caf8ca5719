import { screen, waitFor, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { UserDetail } from "../shared/admin-users";
import type { DriverFilters } from "../shared/driver-filters";
import type { InsightsReport, WhatIfResult } from "../shared/insights";
import { setLanguage } from "./i18n";
import { renderScreen, support } from "./test/admin-harness";
import { stubApi } from "./test/render";

vi.mock("uplot", () => {
  class FakePlot {
    static paths = { bars: () => () => null };
    static tzDate = (d: Date) => d;
    root = document.createElement("div");
    constructor(_opts: unknown, _data: unknown, target: (plot: unknown, init: () => void) => void) {
      target(this, () => {});
    }
    setSize() {}
    destroy() {}
  }
  return { default: FakePlot };
});

const { default: UserInsightsPage } = await import("./features/admin/users/UserInsightsPage");
const { default: UserDashboardPage } = await import("./features/admin/users/UserDashboardPage");
const { DriverInsights } = await import("./features/driver/InsightsPage");
const { DriverDashboard } = await import("./features/driver/DashboardPage");

const driver = { id: 7, app: "flex", name: "Diego Driver", phone: "+13055550102", isAdmin: false, status: "stop" } as unknown as UserDetail;

const slice = { shown: 10, won: 1, gone: 2, disliked: 7, medianHourlyCents: 2500, medianPayCents: 8000 };
const empty = { shown: 0, won: 0, gone: 0, disliked: 0, medianHourlyCents: null, medianPayCents: null };
const report: InsightsReport = {
  now: Date.UTC(2031, 5, 4, 12),
  earnings: [{ weekStart: "2031-06-02", blocks: 1, minutes: 180, payCents: 9000, hourlyCents: 3000, forfeits: 0 }],
  market: {
    days: 30,
    totals: slice,
    byStation: [{ stationId: "DAX5", stationName: "DAX5 Doral", ...slice }],
    byHour: Array.from({ length: 24 }, (_, hour) => ({ hour, ...(hour === 9 ? slice : empty) })),
    byWeekday: (["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const).map((weekday) => ({ weekday, ...(weekday === "mon" ? slice : empty) })),
    reasons: [{ reason: "pay", count: 7 }],
  },
  findings: [{ kind: "under_pay", stationName: "DAX5 Doral", count: 7, medianPayCents: 6250, minPayCents: 7000 }],
};
const filters: DriverFilters = {
  stations: [{ id: "DAX5", minPayCents: null, minHourlyCents: null }],
  minPayCents: 7000,
  minHourlyCents: 0,
  arrivalBufferMinutes: 30,
  minDurationMinutes: 0,
  maxDurationMinutes: 0,
  dailyCapMinutes: 0,
  schedule: { mon: [{ start: "06:00", end: "22:00" }] },
};
const whatIf: WhatIfResult = {
  days: 30,
  offers: 10,
  actual: { blocks: 1, minutes: 180, payCents: 9000 },
  replay: { blocks: 3, minutes: 540, payCents: 24_000, newlyTaken: 2, gone: 1 },
  tookMs: 3,
};

function stub() {
  return stubApi({
    "/api/admin/users/7": { body: { user: driver } },
    "/api/admin/users/7/acting-for": { status: 201, body: { opened: "insights" } },
    "/api/admin/users/7/dashboard/insights": { body: report },
    "/api/admin/users/7/dashboard/insights/what-if": { body: whatIf },
    "/api/admin/users/7/dashboard/offers": { body: { total: 0, page: 1, pageSize: 20, counts: { won: 0, disliked: 0, gone: 0 }, filters, rows: [] } },
    "/api/admin/users/7/dashboard/engine": {
      body: { engine: { state: "stopped", reason: "driver" }, service: { expiresAt: null, goodStanding: true }, now: Date.UTC(2031, 5, 2, 12) },
    },
  });
}

beforeEach(async () => {
  await setLanguage("en");
});

// The pages as the route table puts them together (routes.tsx): the admin's frame around the driver's screens.
describe("a driver's insights, acting for them", () => {
  it("shows their insights under the banner, the what-if without Apply, read through the admin's routes", async () => {
    const calls = stub();
    renderScreen(<UserInsightsPage Insights={DriverInsights} />, { path: "/admin/users/7/insights", route: "/admin/users/:id/insights", user: support });
    const banner = await screen.findByRole("note", { name: "Acting for Diego Driver (+1 (305) 555-0102)" });
    const views = within(banner).getByRole("navigation", { name: "Diego Driver's screens" });
    expect(within(views).getByRole("link", { name: "Insights" })).toHaveAttribute("aria-current", "page");
    expect(within(views).getByRole("link", { name: "Dashboard" })).toHaveAttribute("href", "/admin/users/7/dashboard");
    expect(screen.getByRole("heading", { level: 1, name: "Diego Driver's insights" })).toBeInTheDocument();
    expect(await screen.findByText("This week 7 offers at DAX5 Doral paid under your $70 minimum; their median pay was $62.50.")).toBeInTheDocument();

    // The what-if answers for the driver's saved filters (read from their dashboard's offers)…
    const region = screen.getByRole("region", { name: "What if?" });
    expect(await within(region).findByLabelText("Minimum block pay ($)")).toHaveValue("70");
    expect(await within(region).findByText(/these filters would have taken 3 blocks for \$240/)).toBeInTheDocument();
    await waitFor(() => expect(calls.find((c) => c.path.endsWith("/what-if"))?.body).toEqual({ days: 30, filters }));
    // …but nothing can be applied, and no driver route is called.
    expect(within(region).queryByRole("button", { name: "Apply these filters" })).toBeNull();
    expect(within(region).getByRole("button", { name: "Back to their filters" })).toBeInTheDocument();
    expect(calls.every((c) => c.path.startsWith("/api/admin/"))).toBe(true);
    expect(calls.some((c) => c.method === "PUT")).toBe(false);
    // Opening the screen is recorded once, first (docs/admin.md, "Acting for").
    expect(calls.filter((c) => c.path.endsWith("/acting-for"))).toEqual([
      { method: "POST", path: "/api/admin/users/7/acting-for", body: { view: "insights" } },
    ]);
    expect(calls.findIndex((c) => c.path.includes("/dashboard/"))).toBeGreaterThan(calls.findIndex((c) => c.path.endsWith("/acting-for")));
  });

  it("the dashboard of the driver leads to their insights", async () => {
    stub();
    renderScreen(<UserDashboardPage Dashboard={DriverDashboard} />, { path: "/admin/users/7/dashboard", route: "/admin/users/:id/dashboard", user: support });
    const banner = await screen.findByRole("note", { name: /Acting for Diego Driver/ });
    expect(within(banner).getByRole("link", { name: "Insights" })).toHaveAttribute("href", "/admin/users/7/insights");
    expect(within(banner).getByRole("link", { name: "Dashboard" })).toHaveAttribute("aria-current", "page");
    // The system card's link goes to the admin's view too, never the driver's own page.
    const links = await screen.findAllByRole("link", { name: "Insights" });
    expect(links.map((l) => l.getAttribute("href"))).toEqual(["/admin/users/7/insights", "/admin/users/7/insights"]);
  });
});
