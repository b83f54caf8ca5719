import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { HttpResponse, http } from "msw";
import type { RouteObject } from "react-router";
import { describe, expect, it } from "vitest";
import type { InsightsReport } from "../../../shared/insights";
import i18n, { setLanguage } from "../../i18n";
import { apiServer } from "../../test/api-server";
import { drawn } from "../../test/fake-uplot";
import { renderPage, report, resetEachTest, result, slice, stub, weeks, whatIfCalls } from "../../test/insights-page";
import { aDriver, renderRoutes, signedIn, stubApi } from "../../test/render";

resetEachTest();

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
