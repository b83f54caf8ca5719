import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { DashboardFigures, DashboardSeries } from "../../../../shared/admin-dashboard";
import { setLanguage } from "../../../i18n";
import { mockApi, renderScreen } from "../../../test/admin-harness";
import DashboardPage from "./DashboardPage";
import { TOUR_SEEN_KEY } from "./tour";

// The charts draw on a canvas happy-dom does not have; they are tested on their own (DashboardCharts.test.tsx).
vi.mock("./DashboardCharts", () => ({
  default: ({ series }: { series: DashboardSeries }) => <p>charts for {series.days.length} days</p>,
}));

const period = { registered: 12, paidUsers: 7, payments: 9, revenueCents: 35_991, blocksWon: 40, messagesSent: 300, messagesFailed: 4 };
const figures = (over: Partial<DashboardFigures> = {}): DashboardFigures => ({
  timeZone: "UTC",
  today: "2031-03-10",
  from: "2031-02-09",
  to: "2031-03-10",
  drivers: 100_301,
  active: 41_091,
  disconnected: 19_154,
  disconnectedWithService: 9_411,
  todayFigures: { ...period, registered: 3, paidUsers: 2, payments: 2, revenueCents: 7_998 },
  rangeFigures: period,
  ...over,
});
const series: DashboardSeries = {
  timeZone: "UTC",
  days: ["2031-03-09", "2031-03-10"],
  signups: [1, 2],
  payments: [0, 1],
  revenueCents: [0, 3999],
  blocksWon: [3, 4],
  messagesSent: [5, 6],
  messagesFailed: [0, 1],
};

function stubApi(over: Partial<DashboardFigures> = {}) {
  return mockApi([
    { path: "/api/admin/dashboard", reply: () => ({ body: figures(over) }) },
    { path: "/api/admin/dashboard/series", reply: () => ({ body: series }) },
  ]);
}

beforeEach(async () => {
  await setLanguage("en");
  localStorage.setItem(TOUR_SEEN_KEY, "1");
});
afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
});

/** A key as browsers send it: the tour's library reads the legacy keyCode, which user-event leaves at 0. */
const KEY_CODES = { ArrowRight: 39, ArrowLeft: 37, Escape: 27 } as const;
async function press(key: keyof typeof KEY_CODES) {
  await act(async () => {
    fireEvent.keyDown(window, { key, code: key, keyCode: KEY_CODES[key] });
  });
}

const tourText = {
  live: /users that are active right now/,
  database: /database of registered users/,
  paid: /users who paid today and in the date range/,
};

describe("admin dashboard", () => {
  it("shows the live counts, today's and the range's figures, and the charts", async () => {
    const api = stubApi();
    renderScreen(<DashboardPage />, { path: "/admin" });
    expect(await screen.findByText("41,091")).toBeInTheDocument();
    const live = screen.getByRole("region", { name: "Right now" });
    expect(within(live).getByText("System on").parentElement).toHaveTextContent("41,091");
    expect(within(live).getByText("Registered today").parentElement).toHaveTextContent("3");
    expect(within(live).getByText("Disconnected").parentElement).toHaveTextContent("19,1549,411 of them still have service time");
    expect(screen.getByRole("link", { name: "Open the user database" })).toHaveAttribute("href", "/admin/users");
    const today = screen.getByRole("heading", { name: "Today" }).parentElement!;
    expect(within(today).getByText("Revenue").parentElement).toHaveTextContent("$79.98");
    const range = screen.getByRole("heading", { name: "09/02/31 – 10/03/31" }).parentElement!;
    expect(within(range).getByText("Paid").parentElement).toHaveTextContent("7users, 9 payments");
    expect(await screen.findByText("charts for 2 days")).toBeInTheDocument();
    // The range is the last 30 days in the browser's zone, sent with the zone's name.
    const asked = api.to("/api/admin/dashboard")[0]!.url.searchParams;
    expect(asked.get("timeZone")).toBeTruthy();
    expect(Date.parse(asked.get("to")!) - Date.parse(asked.get("from")!)).toBe(29 * 86_400_000);
  });

  it("asks again for a preset range and refuses a range that ends before it starts", async () => {
    const user = userEvent.setup();
    const api = stubApi();
    renderScreen(<DashboardPage />, { path: "/admin" });
    await screen.findByText("41,091");
    await user.click(screen.getByRole("button", { name: "7 days" }));
    await waitFor(() => {
      const last = api.to("/api/admin/dashboard").at(-1)!.url.searchParams;
      expect(Date.parse(last.get("to")!) - Date.parse(last.get("from")!)).toBe(6 * 86_400_000);
    });
    expect(screen.getByRole("button", { name: "7 days" })).toHaveAttribute("aria-pressed", "true");
    const calls = api.to("/api/admin/dashboard").length;
    fireEvent.change(screen.getByLabelText("From"), { target: { value: "2099-01-01" } });
    expect(await screen.findByRole("alert")).toHaveTextContent("The start date is after the end date.");
    expect(api.to("/api/admin/dashboard")).toHaveLength(calls);
  });

  it("says when the figures cannot be loaded, and tries again", async () => {
    const user = userEvent.setup();
    let fail = true;
    mockApi([
      { path: "/api/admin/dashboard", reply: () => (fail ? { status: 500, body: { error: { code: "internal", message: "x" } } } : { body: figures() }) },
      { path: "/api/admin/dashboard/series", reply: () => ({ body: series }) },
    ]);
    renderScreen(<DashboardPage />, { path: "/admin" });
    expect(await screen.findByText("The figures could not be loaded.", {}, { timeout: 15_000 })).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole("button", { name: "Try again" }));
    expect(await screen.findByText("41,091")).toBeInTheDocument();
  }, 20_000);

  it("shows the figures in Spanish", async () => {
    await setLanguage("es");
    stubApi();
    renderScreen(<DashboardPage />, { path: "/admin" });
    expect(await screen.findByRole("heading", { name: "Panel de administración" })).toBeInTheDocument();
    expect(await screen.findByText("Sistema encendido")).toBeInTheDocument();
    expect(screen.getByText("41.091")).toBeInTheDocument();
  });
});

describe("guided tour", () => {
  const popover = () => document.querySelector(".tour-popover") as HTMLElement | null;

  it("opens by itself on the first visit, once", async () => {
    localStorage.removeItem(TOUR_SEEN_KEY);
    stubApi();
    renderScreen(<DashboardPage />, { path: "/admin" });
    await waitFor(() => expect(popover()).not.toBeNull());
    expect(popover()).toHaveTextContent(tourText.live);
    expect(localStorage.getItem(TOUR_SEEN_KEY)).toBe("1");
  });

  it("moves with next, prev, the dots and the arrow keys, and closes with Esc", async () => {
    const user = userEvent.setup();
    stubApi();
    renderScreen(<DashboardPage />, { path: "/admin" });
    await screen.findByText("41,091");
    expect(popover()).toBeNull();
    await user.click(screen.getByRole("button", { name: "Take the tour" }));
    await waitFor(() => expect(popover()).toHaveTextContent(tourText.live));

    await press("ArrowRight");
    await waitFor(() => expect(popover()).toHaveTextContent(tourText.database));
    await press("ArrowRight");
    await waitFor(() => expect(popover()).toHaveTextContent(tourText.paid));
    // The last step stays the last.
    await press("ArrowRight");
    expect(popover()).toHaveTextContent(tourText.paid);
    await press("ArrowLeft");
    await waitFor(() => expect(popover()).toHaveTextContent(tourText.database));

    await user.click(within(popover()!).getByRole("button", { name: "Go to step 1" }));
    await waitFor(() => expect(popover()).toHaveTextContent(tourText.live));
    await user.click(within(popover()!).getByRole("button", { name: "Next step" }));
    await waitFor(() => expect(popover()).toHaveTextContent(tourText.database));
    await user.click(within(popover()!).getByRole("button", { name: "Previous step" }));
    await waitFor(() => expect(popover()).toHaveTextContent(tourText.live));

    await press("Escape");
    await waitFor(() => expect(popover()).toBeNull());
  });

  it("closes on a click on the mask, and reopens at the first step", async () => {
    const user = userEvent.setup();
    stubApi();
    renderScreen(<DashboardPage />, { path: "/admin" });
    await screen.findByText("41,091");
    await user.click(screen.getByRole("button", { name: "Take the tour" }));
    await waitFor(() => expect(popover()).not.toBeNull());
    await press("ArrowRight");
    await waitFor(() => expect(popover()).toHaveTextContent(tourText.database));
    const mask = document.querySelector(".tour-mask") as HTMLElement;
    await act(async () => {
      fireEvent.click(mask);
    });
    await waitFor(() => expect(popover()).toBeNull());
    await user.click(screen.getByRole("button", { name: "Take the tour" }));
    await waitFor(() => expect(popover()).toHaveTextContent(tourText.live));
  });

  it("has a popover at most 353 px wide", async () => {
    const user = userEvent.setup();
    stubApi();
    renderScreen(<DashboardPage />, { path: "/admin" });
    await screen.findByText("41,091");
    await user.click(screen.getByRole("button", { name: "Take the tour" }));
    await waitFor(() => expect(popover()).not.toBeNull());
    expect(popover()!.style.maxWidth).toBe("353px");
  });
});
