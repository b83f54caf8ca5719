import { screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import DashboardPage from "../features/driver/DashboardPage";
import { DASHBOARD_READS } from "../features/driver/dashboard-reads";
import InsightsPage from "../features/driver/InsightsPage";
import { INSIGHTS_READS } from "../features/driver/insights-reads";
import { setLanguage } from "../i18n";
import { setTokenSource } from "../lib/api-client";
import { SESSION_STORAGE_KEY } from "../lib/session-tokens";
import { USER_PATH } from "../lib/session-value";
import { mockApi, renderScreen } from "../test/admin-harness";
import { aDriver } from "../test/render";
import { EARLY_READS } from "./early-pages";
import { takeEarlyRead } from "./early-reads";
import { EARLY_PAGES } from "./page-template";
import { startEarly } from "./start-early";

const DASHBOARD_PATH = "/flex/dashboard";

const idToken = `h.${btoa(JSON.stringify({ sub: "7", exp: Math.floor(Date.now() / 1000) + 3600 })).replace(/=+$/, "")}.s`;
const now = Date.now();

beforeEach(async () => {
  localStorage.clear();
  await setLanguage("en");
});
afterEach(() => {
  // What a test started and did not use is forgotten before the next one.
  for (const path of [USER_PATH, ...DASHBOARD_READS, ...INSIGHTS_READS]) takeEarlyRead(path, null);
  setTokenSource(async () => null);
  localStorage.clear();
  vi.unstubAllGlobals();
});

/** The dashboard's API, every answer held back until `open()`. */
function heldDashboardApi() {
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const held = (body: unknown) => async () => {
    await gate;
    return { body };
  };
  const page = { total: 0, page: 1, pageSize: 20 };
  const api = mockApi([
    { path: USER_PATH, reply: held({ Item: aDriver() }) },
    {
      path: "/api/driver/engine",
      reply: held({ engine: { state: "stopped", reason: "driver" }, service: { expiresAt: now + 2 * 86_400_000 + 3_600_000, goodStanding: true }, now }),
    },
    { path: "/api/driver/offers", reply: held({ ...page, counts: { won: 0, disliked: 0, gone: 0 }, filters: null, rows: [] }) },
    { path: "/api/payments", reply: held({ ...page, rows: [] }) },
    {
      path: "/api/invitations",
      reply: held({ ...page, rows: [], summary: { invited: 0, registered: 0, paid: 0, free_week: 0, freeWeeksEarned: 0, remainingToday: 20 } }),
    },
  ]);
  const gets = () => api.calls.filter((c) => c.method === "GET").map((c) => `${c.url.pathname}${c.url.search}`);
  return { gets, open };
}

describe("a page opened directly", () => {
  it("the dashboard's reads and the user start before any of the page's code has run, and the page renders from them", async () => {
    localStorage.setItem(SESSION_STORAGE_KEY, JSON.stringify({ idToken, refreshToken: "r" }));
    const api = heldDashboardApi();
    startEarly(DASHBOARD_PATH);
    // Requested at once, while the entry runs: nothing of the page has rendered.
    expect(api.gets()).toEqual([USER_PATH, ...DASHBOARD_READS]);

    setTokenSource(async () => idToken);
    renderScreen(<DashboardPage />, { user: aDriver(), path: DASHBOARD_PATH });
    api.open();
    expect(await screen.findByText("Off: turn it on to search.")).toBeInTheDocument();
    expect(await screen.findByText("No offers yet. Turn the system on: what it sees shows here as it happens.")).toBeInTheDocument();
    expect(await screen.findByText("0 invited, 0 registered, 0 paid; free weeks earned: 0")).toBeInTheDocument();
    // The page's own first reads were those requests: it asked nothing again (and nothing else).
    expect(api.gets()).toEqual([USER_PATH, ...DASHBOARD_READS]);
  });

  it("the insights' report starts with the user, and the page's first read is that request", async () => {
    localStorage.setItem(SESSION_STORAGE_KEY, JSON.stringify({ idToken, refreshToken: "r" }));
    const empty = { shown: 0, won: 0, gone: 0, disliked: 0, medianHourlyCents: null, medianPayCents: null };
    const report = {
      now,
      earnings: [],
      market: { days: 30, totals: empty, byStation: [], byHour: [], byWeekday: [], reasons: [] },
      findings: [],
    };
    const api = mockApi([
      { path: USER_PATH, reply: async () => ({ body: { Item: aDriver() } }) },
      { path: "/api/driver/insights", reply: async () => ({ body: report }) },
    ]);
    const gets = () => api.calls.filter((c) => c.method === "GET").map((c) => `${c.url.pathname}${c.url.search}`);
    startEarly("/flex/insights");
    expect(gets()).toEqual([USER_PATH, ...INSIGHTS_READS]);
    setTokenSource(async () => idToken);
    renderScreen(<InsightsPage />, { user: aDriver(), path: "/flex/insights" });
    expect(await screen.findByText("No history yet")).toBeInTheDocument();
    expect(gets()).toEqual([USER_PATH, ...INSIGHTS_READS]);
  });

  it("starts nothing without a stored session, and no reads on another page", () => {
    const api = heldDashboardApi();
    startEarly(DASHBOARD_PATH);
    localStorage.setItem(SESSION_STORAGE_KEY, JSON.stringify({ idToken, refreshToken: "r" }));
    startEarly("/profile");
    expect(api.gets()).toEqual([]);
  });

  it("are the pages whose chunks the build names for index.html to fetch with the app's code, and they are the files of what they load", async () => {
    expect(EARLY_PAGES.map((page) => page.path)).toEqual(["/flex/dashboard", "/flex/insights"]);
    // index.html's inline script starts the same reads as startEarly, which takes them over.
    for (const page of EARLY_PAGES) expect(page.reads).toEqual(EARLY_READS[page.path as keyof typeof EARLY_READS]);
    expect(EARLY_READS["/flex/dashboard"]).toEqual([USER_PATH, ...DASHBOARD_READS]);
    const source = await import("./start-early.ts?raw").then((m: { default: string }) => m.default);
    const loaded = [...source.matchAll(/import\("\.\.\/([^"]+)"\)/g)].map((m) => `src/app/${m[1]}`);
    expect(loaded.length).toBeGreaterThanOrEqual(3);
    for (const page of EARLY_PAGES) for (const module of loaded) expect(page.sources.some((file) => file.replace(/\.tsx?$/, "") === module)).toBe(true);
  });
});
