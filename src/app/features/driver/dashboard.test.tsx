import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Profiler } from "react";
import { describe, expect, it, vi } from "vitest";
import { setLanguage } from "../../i18n";
import { mockApi, renderScreen } from "../../test/admin-harness";
import { driver, resetEachTest } from "../../test/driver-screens";
import { ENGINE_CLOCK_STEP_MS, type EngineView, LIVE_REFRESH_MS, sameEngineView } from "./api";
import DashboardPage from "./DashboardPage";

const HOUR = 3_600_000;

resetEachTest();

describe("dashboard", () => {
  const now = Date.now();
  const filters = {
    stations: [{ id: "DCH1", minPayCents: 7000 }],
    minPayCents: 5000,
    minHourlyCents: 2000,
    arrivalBufferMinutes: 30,
    minDurationMinutes: 0,
    maxDurationMinutes: 0,
    schedule: {},
    dailyCapMinutes: 0,
  };
  const row = (over: Record<string, unknown>) => ({
    id: 1,
    status: "won",
    stationId: "DCH1",
    stationName: "DCH1 Chicago",
    timeZone: "America/Chicago",
    startsAt: now + 30 * 60_000,
    endsAt: now + 3.5 * HOUR,
    payCents: 7200,
    reasons: [],
    seenAt: now - 60_000,
    forfeitedAt: null,
    arrivedAt: null,
    canCheckIn: true,
    canForfeit: true,
    checkInAvailable: true,
    forfeitable: true,
    ...over,
  });

  type EngineState = "searching" | "stopped";
  /** The dashboard's API; the engine's state may change between polls, and its clock move on. */
  const systemOff = () => ({
    status: 409,
    body: { error: { code: "conflict", message: "Turn on the system to use I've arrived", details: { reason: "system_off" } } },
  });
  function dashboardApi(initial: EngineState | (() => EngineState), clock = () => now, arrive: () => { status: number; body: unknown } = systemOff) {
    const stateNow = typeof initial === "function" ? initial : () => initial;
    return mockApi([
      {
        path: "/api/driver/engine",
        reply: () => {
          const state = stateNow();
          return {
            body: {
              engine:
                state === "searching"
                  ? { state, stations: 3, until: Date.parse("2030-01-01T20:00:00Z"), slowedUntil: null, lastPollAt: now, timeZone: "America/Chicago" }
                  : { state, reason: "driver" },
              service: { expiresAt: now + 2 * 86_400_000 + HOUR, goodStanding: true },
              now: clock(),
            },
          };
        },
      },
      {
        path: "/api/driver/offers",
        reply: () => ({
          body: {
            total: 2,
            page: 1,
            pageSize: 20,
            counts: { won: 1, disliked: 1, gone: 0 },
            filters,
            rows: [
              row({}),
              row({ id: 2, status: "disliked", reasons: ["pay"], payCents: 6200, canCheckIn: false }),
              // Disliked under a $/hour minimum the driver has lowered since: $30/hour is over today's $20.
              row({ id: 3, status: "disliked", reasons: ["hourly"], payCents: 9000, canCheckIn: false }),
            ],
          },
        }),
      },
      {
        method: "POST",
        path: "/api/driver/offers/1/arrive",
        reply: arrive,
      },
      { method: "POST", path: "/api/driver/engine", reply: () => ({ body: { engine: { state: "stopped", reason: "driver" } } }) },
      {
        path: "/api/payments",
        reply: () => ({
          body: {
            total: 1,
            page: 1,
            pageSize: 20,
            rows: [{ id: 4, days: 7, amountCents: 3999, refundedCents: 0, status: "successful", createdAt: Date.parse("2026-11-02T12:00:00Z") }],
          },
        }),
      },
      {
        path: "/api/invitations",
        reply: () => ({
          body: {
            total: 3,
            page: 1,
            pageSize: 20,
            rows: [],
            summary: { invited: 1, registered: 1, paid: 0, free_week: 1, freeWeeksEarned: 1, remainingToday: 19 },
          },
        }),
      },
    ]);
  }

  it("says what the system does, the service state, and each offer with its why", async () => {
    dashboardApi("searching");
    renderScreen(<DashboardPage />, { user: { ...driver, accountConnected: true, setupComplete: true }, path: "/flex/dashboard" });
    expect(await screen.findByText("Searching 3 stations until 2:00 PM")).toBeInTheDocument();
    expect(screen.getByRole("switch", { name: /Search for blocks/ })).toHaveAttribute("aria-checked", "true");
    expect(screen.getByText("Expires in 2 days")).toBeInTheDocument();
    expect(await screen.findByText("Pay $62 is under your $70 minimum")).toBeInTheDocument();
    expect(screen.getByText("$30/hour was under your $/hour minimum at the time")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Won (1)" })).toBeInTheDocument();
    expect(await screen.findByText(/Nov 2: 7 days, \$39\.99/)).toBeInTheDocument();
    expect(screen.getByText("3 invited, 1 registered, 0 paid; free weeks earned: 1")).toBeInTheDocument();
  });

  it("each offer reads as a card on a phone: result, station, its time at the station, pay and $/hour by name, then the why or the action, in English and Spanish", async () => {
    // Wednesday 12 June 2030, 10:00–13:00 in Chicago (CDT).
    const startsAt = Date.parse("2030-06-12T15:00:00Z");
    const block = { startsAt, endsAt: startsAt + 3 * HOUR, payCents: 7200 };
    mockApi([
      {
        path: "/api/driver/engine",
        reply: () => ({ body: { engine: { state: "stopped", reason: "driver" }, service: { expiresAt: now + 2 * 86_400_000, goodStanding: true }, now } }),
      },
      {
        path: "/api/driver/offers",
        reply: () => ({
          body: {
            total: 2,
            page: 1,
            pageSize: 20,
            counts: { won: 1, disliked: 1, gone: 0 },
            filters,
            rows: [
              row({ ...block, startsAt: now + 30 * 60_000, endsAt: now + 30 * 60_000 + 3 * HOUR }),
              row({ ...block, id: 2, status: "disliked", reasons: ["pay"], payCents: 6200, canCheckIn: false }),
            ],
          },
        }),
      },
    ]);
    renderScreen(<DashboardPage />, { user: { ...driver, accountConnected: true, setupComplete: true }, path: "/flex/dashboard" });
    await screen.findByText("Pay $62 is under your $70 minimum");
    const cards = () => within(screen.getByRole("table")).getAllByRole("row").slice(1);
    const cell = (card: HTMLElement, label: string) =>
      within(card)
        .getAllByRole("cell")
        .find((c) => c.dataset.label === label);
    const [won, disliked] = cards();
    expect(within(won!).getByText("Won")).toHaveClass("badge");
    expect(within(won!).getByRole("button", { name: /I've arrived/ })).toBeInTheDocument();
    expect(within(disliked!).getByText("Disliked")).toHaveClass("badge");
    expect(within(disliked!).getByText("DCH1 Chicago")).toBeInTheDocument();
    expect(within(disliked!).getByText("Wed, Jun 12, 10:00 AM – 1:00 PM CDT")).toBeInTheDocument();
    expect(cell(disliked!, "Pay")).toHaveTextContent("$62");
    expect(cell(disliked!, "$/hour")).toHaveTextContent("$20.67");
    expect(within(disliked!).getByRole("listitem")).toHaveTextContent("Pay $62 is under your $70 minimum");
    // Each cell is read with its column's header, on a card as in the table.
    expect(
      within(screen.getByRole("table"))
        .getAllByRole("columnheader")
        .map((h) => h.textContent),
    ).toEqual(["Result", "Station", "When (station time)", "Pay", "$/hour", "Why / action"]);

    await act(() => setLanguage("es"));
    await screen.findByText("El pago de $62 está por debajo de tu mínimo de $70");
    const [ganada, descartada] = cards();
    expect(within(ganada!).getByText("Ganada")).toHaveClass("badge");
    expect(within(ganada!).getByRole("button", { name: /Ya llegué/ })).toBeInTheDocument();
    expect(within(descartada!).getByText("Descartada")).toHaveClass("badge");
    expect(cell(descartada!, "Pago")).toHaveTextContent("$62");
    expect(cell(descartada!, "$/hora")).toHaveTextContent("$20.67");
  });

  it("I've arrived while the system is off: the message docs/product.md keeps", async () => {
    dashboardApi("stopped");
    renderScreen(<DashboardPage />, { user: { ...driver, accountConnected: true, setupComplete: true }, path: "/flex/dashboard" });
    expect(await screen.findByText("Off: turn it on to search.")).toBeInTheDocument();
    await userEvent.click(await screen.findByRole("button", { name: /I've arrived/ }));
    expect(await screen.findByText('Turn on system to use "I\'ve arrived"')).toBeInTheDocument();
  });

  it("I've arrived, limited (429): says how long to wait, in English and Spanish", async () => {
    const limited = () => ({
      status: 429,
      body: {
        error: { code: "rate_limited", message: "Too many attempts. Try again later", details: { reason: "too_many_attempts", retryAfterSeconds: 2400 } },
      },
    });
    dashboardApi("searching", () => now, limited);
    renderScreen(<DashboardPage />, { user: { ...driver, accountConnected: true, setupComplete: true }, path: "/flex/dashboard" });
    await userEvent.click(await screen.findByRole("button", { name: /I've arrived/ }));
    expect(await screen.findByText("Too many attempts. Try again in 40 minutes.")).toBeInTheDocument();
    await act(() => setLanguage("es"));
    await userEvent.click(await screen.findByRole("button", { name: /Ya llegué/ }));
    expect(await screen.findByText("Demasiados intentos. Inténtalo de nuevo en 40 minutos.")).toBeInTheDocument();
  });

  it("a block without check-in says so instead of the button; one not yet scheduled says it cannot be forfeited, in both languages", async () => {
    mockApi([
      {
        path: "/api/driver/engine",
        reply: () => ({ body: { engine: { state: "stopped", reason: "driver" }, service: { expiresAt: now + 2 * 86_400_000, goodStanding: true }, now } }),
      },
      {
        path: "/api/driver/offers",
        reply: () => ({
          body: {
            total: 3,
            page: 1,
            pageSize: 20,
            counts: { won: 3, disliked: 0, gone: 0 },
            filters,
            rows: [
              row({ id: 1, checkInAvailable: false }),
              row({ id: 2, startsAt: now + 26 * HOUR, endsAt: now + 29 * HOUR, canCheckIn: false, forfeitable: false }),
              row({ id: 3, startsAt: now + 50 * HOUR, endsAt: now + 53 * HOUR, canCheckIn: false, forfeitable: true }),
            ],
          },
        }),
      },
    ]);
    renderScreen(<DashboardPage />, { user: { ...driver, accountConnected: true, setupComplete: true }, path: "/flex/dashboard" });
    const rows = () => screen.getAllByRole("row").slice(1);
    expect(await screen.findByText("“I've arrived” is not available for this block")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /I've arrived/ })).toBeNull();
    expect(within(rows()[1]!).getByText("Can't be forfeited yet")).toBeInTheDocument();
    expect(rows()[2]!.textContent).not.toMatch(/forfeited yet/);
    await act(() => setLanguage("es"));
    expect(await screen.findByText("“Ya llegué” no está disponible para este bloque")).toBeInTheDocument();
    expect(within(rows()[1]!).getByText("Aún no se puede ceder")).toBeInTheDocument();
  });

  it("I've arrived refused because no check-in is configured, or the block is not on the schedule yet: said in both languages", async () => {
    const refused = (reason: string) => ({ status: 409, body: { error: { code: "conflict", message: "Refused", details: { reason } } } });
    let calls = 0;
    dashboardApi(
      "searching",
      () => now,
      () => (calls++ % 2 === 0 ? refused("check_in_unavailable") : refused("not_scheduled_yet")),
    );
    renderScreen(<DashboardPage />, { user: { ...driver, accountConnected: true, setupComplete: true }, path: "/flex/dashboard" });
    await userEvent.click(await screen.findByRole("button", { name: /I've arrived/ }));
    expect(await screen.findByText("“I've arrived” is not available for this block")).toBeInTheDocument();
    await act(() => setLanguage("es"));
    await userEvent.click(await screen.findByRole("button", { name: /Ya llegué/ }));
    expect(await screen.findByText("La plataforma todavía no puso este bloque en tu horario. Inténtalo de nuevo en unos minutos.")).toBeInTheDocument();
  });

  it("the switch turns the system off", async () => {
    const api = dashboardApi("searching");
    renderScreen(<DashboardPage />, { user: { ...driver, accountConnected: true, setupComplete: true }, path: "/flex/dashboard" });
    await userEvent.click(await screen.findByRole("switch"));
    await waitFor(() => expect(api.to("/api/driver/engine", "POST")[0]?.body).toEqual({ on: false }));
  });

  it("a poll that answers the same re-renders nothing; one that answers something new does", async () => {
    let engineState: EngineState = "searching";
    // The server's clock moves on with every answer: alone it is no news.
    const api = dashboardApi(
      () => engineState,
      () => Date.now(),
    );
    const reads = (path: string) => api.to(path).length;
    const commits = vi.fn();
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      renderScreen(
        <Profiler id="dashboard" onRender={commits}>
          <DashboardPage />
        </Profiler>,
        { user: { ...driver, accountConnected: true, setupComplete: true }, path: "/flex/dashboard" },
      );
      expect(await screen.findByText("Searching 3 stations until 2:00 PM")).toBeInTheDocument();
      expect(await screen.findByText("Pay $62 is under your $70 minimum")).toBeInTheDocument();
      expect(await screen.findByText("3 invited, 1 registered, 0 paid; free weeks earned: 1")).toBeInTheDocument();
      await act(() => vi.advanceTimersByTimeAsync(100));
      const settled = commits.mock.calls.length;
      const [engineReads, offerReads] = [reads("/api/driver/engine"), reads("/api/driver/offers")];

      await act(() => vi.advanceTimersByTimeAsync(LIVE_REFRESH_MS + 100));
      await waitFor(() => expect(reads("/api/driver/offers")).toBeGreaterThan(offerReads));
      expect(reads("/api/driver/engine")).toBeGreaterThan(engineReads);
      await act(() => vi.advanceTimersByTimeAsync(100));
      expect(commits.mock.calls.length).toBe(settled);

      engineState = "stopped";
      await act(() => vi.advanceTimersByTimeAsync(LIVE_REFRESH_MS + 100));
      expect(await screen.findByText("Off: turn it on to search.")).toBeInTheDocument();
      expect(commits.mock.calls.length).toBeGreaterThan(settled);
    } finally {
      vi.useRealTimers();
    }
  });

  it("shows one loading view until the engine answers, while the offers are already being read", async () => {
    let answer = () => {};
    const engineHeld = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const api = dashboardApi("searching");
    const reply = vi.mocked(fetch).getMockImplementation()!;
    vi.mocked(fetch).mockImplementation(async (input, init) => {
      if (String(input).startsWith("/api/driver/engine")) await engineHeld;
      return reply(input, init);
    });
    renderScreen(<DashboardPage />, { user: { ...driver, accountConnected: true, setupComplete: true }, path: "/flex/dashboard" });
    await waitFor(() => expect(api.to("/api/driver/offers")).toHaveLength(1));
    // Time for the offers' answer to render, were they not hidden.
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(screen.queryByRole("switch")).toBeNull();
    expect(screen.queryByRole("button", { name: "Won (1)" })).toBeNull();
    answer();
    expect(await screen.findByRole("switch", { name: /Search for blocks/ })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Won (1)" })).toBeInTheDocument();
  });

  it("an engine answer is the same one until more than its clock has changed, or the clock has moved a minute", () => {
    const answer = { engine: { state: "stopped", reason: "driver" }, service: { expiresAt: now + HOUR, goodStanding: true }, now } as EngineView;
    expect(sameEngineView(answer, { ...answer, now: now + 3000 })).toBe(true);
    expect(sameEngineView(answer, { ...answer, now: now + ENGINE_CLOCK_STEP_MS })).toBe(false);
    expect(sameEngineView(answer, { ...answer, engine: { state: "stopped", reason: "expired" } })).toBe(false);
    expect(sameEngineView(undefined, answer)).toBe(false);
  });

  it("an empty list and a failed one", async () => {
    mockApi([
      {
        path: "/api/driver/engine",
        reply: () => ({ body: { engine: { state: "stopped", reason: "expired" }, service: { expiresAt: now - 1000, goodStanding: false }, now } }),
      },
      { path: "/api/driver/offers", reply: () => ({ status: 500, body: { error: { code: "internal", message: "x" } } }) },
    ]);
    renderScreen(<DashboardPage />, { user: driver, path: "/flex/dashboard" });
    expect(await screen.findByText("Stopped: service expired.")).toBeInTheDocument();
    expect(screen.getByText("Expired")).toBeInTheDocument();
    expect(await screen.findByText("Couldn't load offers")).toBeInTheDocument();
  });
});
