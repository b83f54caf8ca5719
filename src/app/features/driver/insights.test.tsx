import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { HttpResponse, http } from "msw";
import type { RouteObject } from "react-router";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { DriverFilters } from "../../../shared/driver-filters";
import type { InsightsReport, MarketSlice, WhatIfResult } from "../../../shared/insights";
import i18n, { setLanguage } from "../../i18n";
import { apiServer } from "../../test/api-server";
import { aDriver, renderRoutes, signedIn, stubApi } from "../../test/render";

// happy-dom has no canvas: a stand-in records what each chart was asked to draw.
const drawn: { labels: string[]; data: (number | null)[][] }[] = [];
vi.mock("uplot", () => {
  class FakePlot {
    static paths = { bars: () => () => null };
    static tzDate = (d: Date) => d;
    root = document.createElement("div");
    // As uPlot: built, then drawn by the init it hands to a function given in place of a target.
    constructor(opts: { series: { label?: string }[] }, data: (number | null)[][], target: HTMLElement | ((plot: unknown, init: () => void) => void)) {
      const init = () => drawn.push({ labels: opts.series.slice(1).map((s) => s.label ?? ""), data });
      if (typeof target === "function") target(this, init);
      else {
        target.append(this.root);
        init();
      }
    }
    setSize() {}
    destroy() {}
  }
  return { default: FakePlot };
});

const { default: InsightsPage } = await import("./InsightsPage");

const slice = (shown: number, over: Partial<MarketSlice> = {}): MarketSlice => ({
  shown,
  won: 0,
  gone: 0,
  disliked: shown,
  medianHourlyCents: shown ? 2500 : null,
  medianPayCents: shown ? 8000 : null,
  ...over,
});

const weeks = ["2031-04-14", "2031-04-21", "2031-04-28", "2031-05-05", "2031-05-12", "2031-05-19", "2031-05-26", "2031-06-02"];

const report: InsightsReport = {
  now: Date.UTC(2031, 5, 4, 12),
  earnings: weeks.map((weekStart, i) => ({
    weekStart,
    blocks: i === 7 ? 3 : 1,
    minutes: i === 7 ? 630 : 210,
    payCents: i === 7 ? 31_500 : 10_500,
    hourlyCents: 3000,
    forfeits: i === 6 ? 1 : 0,
  })),
  market: {
    days: 30,
    totals: { shown: 1234, won: 10, gone: 300, disliked: 924, medianHourlyCents: 2740, medianPayCents: 9600 },
    byStation: [
      { stationId: "DAX5", stationName: "DAX5 Doral", ...slice(1000, { won: 8, gone: 250, disliked: 742 }) },
      { stationId: "DMI2", stationName: "DMI2 Hialeah", ...slice(234, { won: 2, gone: 50, disliked: 182, medianHourlyCents: null, medianPayCents: null }) },
    ],
    byHour: Array.from({ length: 24 }, (_, hour) => ({ hour, ...slice(hour === 15 ? 200 : hour > 5 ? 40 : 0) })),
    byWeekday: (["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const).map((weekday) => ({ weekday, ...slice(weekday === "sat" ? 400 : 139) })),
    reasons: [
      { reason: "hourly", count: 700 },
      { reason: "window", count: 224 },
    ],
  },
  findings: [
    { kind: "under_hourly", stationName: "DAX5", count: 180, medianHourlyCents: 2740, minHourlyCents: 3000 },
    { kind: "gone", count: 12, share: 0.25 },
    { kind: "best_hour", stationName: "DAX5", hour: 15, medianHourlyCents: 3350 },
  ],
};

const saved: DriverFilters = {
  stations: [{ id: "DAX5", minPayCents: null, minHourlyCents: null }],
  minPayCents: 5000,
  minHourlyCents: 3000,
  arrivalBufferMinutes: 30,
  minDurationMinutes: 0,
  maxDurationMinutes: 0,
  dailyCapMinutes: 0,
  schedule: { mon: [{ start: "06:00", end: "22:00" }] },
};

const result = (blocks: number, payCents: number, over: Partial<WhatIfResult["replay"]> = {}): WhatIfResult => ({
  days: 30,
  offers: 1234,
  actual: { blocks: 10, minutes: 2100, payCents: 105_000 },
  replay: { blocks, minutes: blocks * 210, payCents, newlyTaken: 4, gone: 2, ...over },
  tookMs: 12,
});

type Answers = Parameters<typeof stubApi>[0];

function stub(over: Answers = {}) {
  return stubApi({
    "/api/driver/insights": { body: report },
    "/api/driver/insights/what-if": { body: result(10, 105_000, { newlyTaken: 0, gone: 0 }) },
    "/api/driver/filters": { body: { filters: saved, setupComplete: true } },
    ...over,
  });
}

function renderPage() {
  return renderRoutes(
    [
      { path: "/flex/insights", element: <InsightsPage /> },
      { path: "*", element: <p>elsewhere</p> },
    ],
    { path: "/flex/insights", session: signedIn(aDriver()), toaster: true },
  );
}

const whatIfCalls = (calls: ReturnType<typeof stubApi>) => calls.filter((c) => c.path === "/api/driver/insights/what-if");

beforeEach(async () => {
  drawn.length = 0;
  await setLanguage("en");
});

describe("insights", () => {
  it("shows the findings, the earnings, the market and the what-if, in English", async () => {
    stub();
    renderPage();
    // Findings, worded with the driver's money format.
    const findings = await screen.findByRole("region", { name: "This week" });
    expect(
      within(findings)
        .getAllByRole("listitem")
        .map((li) => li.textContent),
    ).toEqual([
      "This week 180 offers at DAX5 were under your $30/hour minimum; their median was $27.40/hour.",
      "This week 12 offers your filters wanted were taken by someone else first (25% of those it wanted).",
      "At DAX5, blocks starting at 3 PM paid best: a median of $33.50/hour.",
    ]);

    // Earnings: a chart and, beside it, the same figures as a table in view.
    const earnings = screen.getByRole("region", { name: "Earnings, last 8 weeks" });
    expect(within(earnings).getByRole("img", { name: "Over 8 weeks: 10 blocks, $1,050 in total." })).toBeInTheDocument();
    const earningRows = within(within(earnings).getByRole("table")).getAllByRole("row");
    expect(earningRows[0]!.textContent).toBe("Week ofBlocks wonPayHours$/hourGiven back");
    expect(earningRows).toHaveLength(9);
    expect(earningRows[7]!.textContent).toBe("May 261$1053.5$301");
    expect(earningRows[8]!.textContent).toBe("Jun 23$31510.5$300");
    // Drawn once near the screen, uPlot loaded then.
    await waitFor(() =>
      expect(drawn[0]).toEqual({
        labels: ["Blocks won", "Pay"],
        data: [
          [0, 1, 2, 3, 4, 5, 6, 7],
          [1, 1, 1, 1, 1, 1, 1, 3],
          [...Array(7).fill(10_500), 31_500],
        ],
      }),
    );

    // The market: totals, stations, hour and weekday charts (each with its table), the reasons.
    const market = screen.getByRole("region", { name: "The market, last 30 days" });
    expect(
      await within(market).findByText(
        "1,234 offers shown: 10 won, 300 gone (taken by someone else first), 924 turned down by your filters. Their median was $27.40/hour and $96 a block.",
      ),
    ).toBeInTheDocument();
    const byStation = within(market).getByRole("table", { name: "Offers by station" });
    expect(
      within(byStation)
        .getAllByRole("row")
        .map((r) => r.textContent),
    ).toEqual(["StationOffersWonGoneTurned downMedian $/hourMedian pay", "DAX5 Doral1,0008250742$25$80", "DMI2 Hialeah234250182——"]);
    // The charts' tables are built when asked for.
    expect(within(market).getAllByText("Show as a table")).toHaveLength(2);
    expect(within(market).queryByRole("table", { name: "Offers by hour of the day (station time)" })).toBeNull();
    for (const toggle of within(market).getAllByText("Show as a table")) await userEvent.click(toggle);
    const byHour = within(market).getByRole("table", { name: "Offers by hour of the day (station time)" });
    expect(within(byHour).getAllByRole("row")).toHaveLength(25);
    expect(within(byHour).getByRole("row", { name: /^3 PM/ }).textContent).toBe("3 PM200$2500200$80");
    expect(within(market).getByRole("img", { name: "Most offers came at 3 PM: 200." })).toBeInTheDocument();
    const byDay = within(market).getByRole("table", { name: "Offers by day of the week" });
    expect(
      within(byDay)
        .getAllByRole("row")
        .map((r) => r.firstChild?.textContent),
    ).toEqual(["Day", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]);
    const reasons = within(market).getByRole("table", { name: "Why your filters turned offers down" });
    expect(
      within(reasons)
        .getAllByRole("row")
        .map((r) => r.textContent),
    ).toEqual(["ReasonOffers", "$/hour under your minimum700", "Outside your schedule windows224"]);

    // The way back comes under the figures, once they are in (above them, it moved when they came).
    expect(screen.getByRole("link", { name: "Back to the dashboard" })).toHaveAttribute("href", "/flex/dashboard");

    // The what-if starts from the saved filters and answers for them.
    const whatIf = screen.getByRole("region", { name: "What if?" });
    expect(await within(whatIf).findByLabelText("Minimum $/hour")).toHaveValue("30");
    expect(await within(whatIf).findByText("Every block counted here is one the system did take.")).toBeInTheDocument();
  });

  it("words the same report in Spanish", async () => {
    await setLanguage("es");
    stub({ "/api/driver/insights/what-if": { body: result(14, 123_400) } });
    renderPage();
    const findings = await screen.findByRole("region", { name: "Esta semana" });
    expect(within(findings).getAllByRole("listitem")[0]).toHaveTextContent(
      "Esta semana 180 ofertas en DAX5 estuvieron por debajo de tu mínimo de $30/hora; su mediana fue $27.40/hora.",
    );
    expect(screen.getByRole("heading", { level: 1, name: "Estadísticas" })).toBeInTheDocument();
    expect(screen.getByRole("region", { name: "Ganancias, últimas 8 semanas" })).toBeInTheDocument();
    const market = screen.getByRole("region", { name: "El mercado, últimos 30 días" });
    // Laid out in a frame after the first screen's.
    expect(await within(market).findByRole("table", { name: "Ofertas por estación" })).toBeInTheDocument();
    const reasons = within(market).getByRole("table", { name: "Por qué tus filtros descartaron ofertas" });
    expect(within(reasons).getByText("$/hora por debajo de tu mínimo")).toBeInTheDocument();
    expect(within(reasons).getByText("Fuera de las franjas de tu horario")).toBeInTheDocument();
    const whatIf = screen.getByRole("region", { name: "¿Y si…?" });
    expect(await within(whatIf).findByRole("button", { name: "Aplicar estos filtros" })).toBeDisabled();
    expect(await within(whatIf).findByText(/estos filtros habrían tomado 14 bloques por \$1,234; el sistema tomó 10 por \$1,050/)).toBeInTheDocument();
    expect(
      within(whatIf).getByText(
        /4 de ellos son ofertas que el sistema dejó pasar: otras personas podrían haberlas tomado primero, así que quizá se las habrían llevado otros conductores de todos modos\. Otras personas tomaron 2 ofertas más/,
      ),
    ).toBeInTheDocument();
  });

  it("says there is no history yet when the engine has seen nothing", async () => {
    const empty: InsightsReport = {
      ...report,
      earnings: weeks.map((weekStart) => ({ weekStart, blocks: 0, minutes: 0, payCents: 0, hourlyCents: null, forfeits: 0 })),
      market: {
        days: 30,
        totals: slice(0),
        byStation: [],
        byHour: report.market.byHour.map((h) => ({ ...h, ...slice(0) })),
        byWeekday: report.market.byWeekday.map((d) => ({ ...d, ...slice(0) })),
        reasons: [],
      },
      findings: [],
    };
    const calls = stub({ "/api/driver/insights": { body: empty } });
    renderPage();
    expect(await screen.findByText("No history yet")).toBeInTheDocument();
    expect(screen.getByText(/Turn it on, and come back/)).toBeInTheDocument();
    expect(screen.queryByRole("region", { name: "What if?" })).toBeNull();
    expect(whatIfCalls(calls)).toHaveLength(0);
  });

  it("an error is said, with a way to try again", async () => {
    stub({
      "/api/driver/insights": [{ status: 500, body: { error: { code: "internal", message: "Boom" } } }, { body: report }],
    });
    renderPage();
    expect(await screen.findByText("Could not load your insights.")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Try again" }));
    expect(await screen.findByRole("region", { name: "This week" })).toBeInTheDocument();
  });

  it("too many what-ifs in a minute (429): says how long to wait, in English and Spanish", async () => {
    const limited = {
      status: 429,
      body: { error: { code: "rate_limited", message: "Too many attempts. Try again later", details: { reason: "too_many_attempts", retryAfterSeconds: 42 } } },
    };
    stub({ "/api/driver/insights/what-if": limited });
    renderPage();
    const whatIf = await screen.findByRole("region", { name: "What if?" });
    expect(await within(whatIf).findByRole("alert")).toHaveTextContent("Too many attempts. Try again in 42 seconds.");
    await act(() => setLanguage("es"));
    await waitFor(() => expect(within(whatIf).getByRole("alert")).toHaveTextContent("Demasiados intentos. Inténtalo de nuevo en 42 segundos."));
  });

  it("the period switch asks for the last 7 days", async () => {
    const asked: string[] = [];
    stub();
    apiServer.use(
      http.get("*/api/driver/insights", ({ request }) => {
        const days = new URL(request.url).searchParams.get("days") ?? "";
        asked.push(days);
        return HttpResponse.json({ ...report, market: { ...report.market, days: Number(days) } });
      }),
    );
    renderPage();
    await screen.findByRole("region", { name: "The market, last 30 days" });
    const seven = screen.getByRole("button", { name: "Last 7 days" });
    expect(seven).toHaveAttribute("aria-pressed", "false");
    await userEvent.click(seven);
    expect(await screen.findByRole("region", { name: "The market, last 7 days" })).toBeInTheDocument();
    expect(seven).toHaveAttribute("aria-pressed", "true");
    expect(asked).toEqual(["30", "7"]);
  });

  it("a period that fails to load leaves the last one on screen, and says so", async () => {
    stub();
    apiServer.use(
      http.get("*/api/driver/insights", ({ request }) =>
        new URL(request.url).searchParams.get("days") === "7"
          ? HttpResponse.json({ error: { code: "bad_request", message: "No" } }, { status: 400 })
          : HttpResponse.json(report),
      ),
    );
    renderPage();
    await screen.findByRole("region", { name: "The market, last 30 days" });
    await userEvent.click(screen.getByRole("button", { name: "Last 7 days" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Could not load your insights.");
    expect(screen.getByRole("region", { name: "The market, last 30 days" })).toBeInTheDocument();
  });

  it("the what-if asks once the driver stops typing, keeps the last answer while it works, then shows the new one", async () => {
    const user = userEvent.setup();
    let release: () => void = () => {};
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const bodies: unknown[] = [];
    stub();
    apiServer.use(
      http.post("*/api/driver/insights/what-if", async ({ request }) => {
        bodies.push(await request.json());
        if (bodies.length === 1) return HttpResponse.json(result(10, 105_000, { newlyTaken: 0, gone: 0 }));
        await slow;
        return HttpResponse.json(result(14, 123_400));
      }),
    );
    renderPage();
    const whatIf = await screen.findByRole("region", { name: "What if?" });
    const hourly = await within(whatIf).findByLabelText("Minimum $/hour");
    expect(await within(whatIf).findByText(/these filters would have taken 10 blocks for \$1,050/)).toBeInTheDocument();
    expect(bodies).toEqual([{ days: 30, filters: saved }]);

    await user.clear(hourly);
    await user.type(hourly, "25");
    // Each keystroke restarts the wait: one request for "25", none for "" or "2".
    await waitFor(() => expect(bodies).toHaveLength(2));
    expect(bodies[1]).toEqual({ days: 30, filters: { ...saved, minHourlyCents: 2500 } });
    // While it works, the last answer stays, marked busy.
    expect(within(whatIf).getByText("Working it out…")).toBeInTheDocument();
    expect(within(whatIf).getByText(/these filters would have taken 10 blocks/)).toBeInTheDocument();
    await act(async () => release());
    expect(await within(whatIf).findByText(/these filters would have taken 14 blocks for \$1,234/)).toBeInTheDocument();
    expect(within(whatIf).queryByText("Working it out…")).toBeNull();
    const table = within(whatIf).getByRole("table");
    expect(
      within(table)
        .getAllByRole("row")
        .map((r) => r.textContent),
    ).toEqual(["It tookWith these filters", "Blocks1014", "Hours3549", "Pay$1,050$1,234"]);
    // Said plainly: offers passed on might have gone to someone else anyway.
    expect(
      within(whatIf).getByText(
        /4 of them are offers the system passed on: someone else might have taken them first, so they might have gone to other drivers anyway\. 2 more offers these filters want were taken by someone else/,
      ),
    ).toBeInTheDocument();
    await new Promise((r) => setTimeout(r, 400));
    expect(bodies).toHaveLength(2);
  });

  it("asks nothing while a field is wrong, and says what to fix", async () => {
    const user = userEvent.setup();
    const calls = stub();
    renderPage();
    const whatIf = await screen.findByRole("region", { name: "What if?" });
    await waitFor(() => expect(whatIfCalls(calls)).toHaveLength(1));
    const pay = within(whatIf).getByLabelText("Minimum block pay ($)");
    await user.clear(pay);
    await user.type(pay, "abc");
    expect(within(whatIf).getByText("Fix the marked fields to see the result.")).toBeInTheDocument();
    expect(pay).toHaveAttribute("aria-invalid", "true");
    await new Promise((r) => setTimeout(r, 400));
    expect(whatIfCalls(calls)).toHaveLength(1);
    expect(within(whatIf).getByRole("button", { name: "Apply these filters" })).toBeDisabled();
  });

  it("Apply saves the edited filters with PUT after a confirm", async () => {
    const user = userEvent.setup();
    const calls = stub();
    renderPage();
    const whatIf = await screen.findByRole("region", { name: "What if?" });
    const apply = await within(whatIf).findByRole("button", { name: "Apply these filters" });
    expect(apply).toBeDisabled();
    // A station more, with its own minimum, and a longer buffer.
    await user.click(within(whatIf).getByText("Stations", { selector: "summary", exact: false }));
    await user.click(within(whatIf).getByRole("checkbox", { name: "DMI2 Hialeah" }));
    await user.type(within(whatIf).getByRole("textbox", { name: "DMI2 Hialeah: Min. $/hour (optional)" }), "28");
    const buffer = within(whatIf).getByLabelText("Arrival buffer (minutes)");
    await user.clear(buffer);
    await user.type(buffer, "45");
    await user.click(apply);
    const dialog = await screen.findByRole("dialog", { name: "Apply these filters?" });
    await user.click(within(dialog).getByRole("button", { name: "Apply" }));
    const edited = {
      ...saved,
      stations: [
        { id: "DAX5", minPayCents: null, minHourlyCents: null },
        { id: "DMI2", minPayCents: null, minHourlyCents: 2800 },
      ],
      arrivalBufferMinutes: 45,
    };
    await waitFor(() => expect(calls.filter((c) => c.method === "PUT")).toEqual([{ method: "PUT", path: "/api/driver/filters", body: edited }]));
    // Its stations are those of the offers and of the saved filters: the platform's list is not asked for.
    expect(calls.map((c) => c.path)).not.toContain("/api/driver/stations");
    expect(await screen.findByText("Filters saved: the system uses them from now on.")).toBeInTheDocument();
    // The applied filters are the new starting point: nothing left to apply.
    await waitFor(() => expect(within(whatIf).getByRole("button", { name: "Apply these filters" })).toBeDisabled());
  });

  it("cancelling the confirm saves nothing; a refused save is said", async () => {
    const user = userEvent.setup();
    const calls = stub({
      "/api/driver/filters": [
        { body: { filters: saved } },
        { status: 503, body: { error: { code: "unavailable", message: "Service unavailable: try again shortly" } } },
      ],
    });
    renderPage();
    const whatIf = await screen.findByRole("region", { name: "What if?" });
    await user.type(await within(whatIf).findByLabelText("Minimum block pay ($)"), "0");
    await user.click(within(whatIf).getByRole("button", { name: "Apply these filters" }));
    await user.click(within(await screen.findByRole("dialog")).getByRole("button", { name: "Cancel" }));
    expect(calls.filter((c) => c.method === "PUT")).toHaveLength(0);
    await user.click(within(whatIf).getByRole("button", { name: "Apply these filters" }));
    await user.click(within(await screen.findByRole("dialog")).getByRole("button", { name: "Apply" }));
    expect(await screen.findByText("Service unavailable: try again shortly")).toBeInTheDocument();
    expect(calls.filter((c) => c.method === "PUT")[0]?.body).toEqual({ ...saved, minPayCents: 50_000 });
    expect(within(whatIf).getByRole("button", { name: "Apply these filters" })).toBeEnabled();
  });
});

describe("the way to the insights", () => {
  it("the route table titles the driver's page and the admin's in both languages, from the page's own strings", async () => {
    const { pageRoutes } = await import("../../routes");
    const titles: string[] = [];
    const walk = (routes: RouteObject[]) => {
      for (const r of routes) {
        if (r.path === "flex/insights" || r.path === "users/:id/insights") titles.push((r.handle as { title: string }).title);
        if (r.children) walk(r.children);
      }
    };
    walk(pageRoutes);
    expect(titles.map((key) => i18n.t(key))).toEqual(["User insights", "Insights"]);
    await setLanguage("es");
    expect(titles.map((key) => i18n.t(key))).toEqual(["Estadísticas del usuario", "Estadísticas"]);
  });

  it("the dashboard links to them", async () => {
    const { default: DashboardPage } = await import("./DashboardPage");
    stubApi({
      "/api/driver/engine": {
        body: { engine: { state: "stopped", reason: "driver" }, service: { expiresAt: null, goodStanding: true }, now: Date.UTC(2031, 5, 2, 12) },
      },
    });
    renderRoutes([{ path: "/flex/dashboard", element: <DashboardPage /> }], { path: "/flex/dashboard", session: signedIn(aDriver()) });
    expect(await screen.findByRole("link", { name: "Insights" })).toHaveAttribute("href", "/flex/insights");
  });
});
