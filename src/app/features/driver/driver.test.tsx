import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Profiler } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLanguage } from "../../i18n";
import type { User } from "../../lib/session";
import { mockApi, renderScreen } from "../../test/admin-harness";
import ApprovalPage from "./ApprovalPage";
import { ENGINE_CLOCK_STEP_MS, type EngineView, LIVE_REFRESH_MS, sameEngineView } from "./api";
import CalendarPage from "./CalendarPage";
import CodePage from "./CodePage";
import ConnectPage from "./ConnectPage";
import DashboardPage from "./DashboardPage";
import { fromFormValues, toFormValues } from "./filters-form";
import SettingsPage from "./SettingsPage";

const driver = { name: "Dana Driver", isAdmin: false, app: "flex", email: null, accountConnected: false, setupComplete: false } as Partial<User>;
/** Spark keeps the modelled email-and-password sign-in and its code and approval steps (Flex's is in connect.test.tsx). */
const sparkDriver = { ...driver, app: "spark" } as Partial<User>;
const HOUR = 3_600_000;

beforeEach(() => setLanguage("en"));
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const notConnected = { connected: false, accountName: null, connectedAt: null, disconnectedAt: null, disconnectReason: null, pending: null };

describe("connecting a Spark account", () => {
  it("says when the platform refuses the password, and shows the banner after a refused refresh", async () => {
    mockApi([
      { path: "/api/driver/connection", reply: () => ({ body: { ...notConnected, disconnectReason: "refused" } }) },
      {
        method: "POST",
        path: "/api/driver/connection",
        reply: () => ({
          status: 422,
          body: { error: { code: "unprocessable", message: "Platform email or password incorrect", details: { reason: "refused" } } },
        }),
      },
    ]);
    renderScreen(<ConnectPage />, { user: sparkDriver, path: "/flex/login" });
    expect(await screen.findByText(/Spark ended the connection to your account/)).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText("Spark email"), "dana@example.com");
    await userEvent.type(screen.getByLabelText("Spark password"), "nope");
    await userEvent.click(screen.getByRole("button", { name: "Connect account" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Email or password incorrect");
  });

  it("the code page shows a wrong code on the field, and a right one moves on to the filters", async () => {
    let tries = 0;
    mockApi([
      {
        path: "/api/driver/connection",
        reply: () => ({
          body: { ...notConnected, pending: { attemptId: "B".repeat(24), kind: "code", destination: "d•••@x.com", email: "d@x.com", expiresAt: 0 } },
        }),
      },
      {
        method: "POST",
        path: "/api/driver/connection/code",
        reply: () =>
          tries++ === 0
            ? { status: 422, body: { error: { code: "unprocessable", message: "The code is not correct", details: { reason: "refused" } } } }
            : { body: { status: "connected" } },
      },
    ]);
    const router = renderScreen(<CodePage />, { user: sparkDriver, path: "/flex/otp" });
    expect(await screen.findByText(/sent a verification code to d•••@x.com/)).toBeInTheDocument();
    const field = screen.getByLabelText("Verification code");
    await userEvent.type(field, "111111");
    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect(await screen.findByText("The code is not correct")).toBeInTheDocument();
    await userEvent.clear(field);
    await userEvent.type(field, "222222");
    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/flex/settings"));
  });

  const tooMany = (retryAfterSeconds: number) => ({
    status: 429,
    body: { error: { code: "rate_limited", message: "Too many attempts. Try again later", details: { reason: "too_many_attempts", retryAfterSeconds } } },
  });

  it("a refused connection (429) says how long to wait, in English and Spanish", async () => {
    mockApi([
      { path: "/api/driver/connection", reply: () => ({ body: notConnected }) },
      { method: "POST", path: "/api/driver/connection", reply: () => tooMany(86_350) },
    ]);
    renderScreen(<ConnectPage />, { user: sparkDriver, path: "/flex/login" });
    await userEvent.type(await screen.findByLabelText("Spark email"), "dana@example.com");
    await userEvent.type(screen.getByLabelText("Spark password"), "secret");
    await userEvent.click(screen.getByRole("button", { name: "Connect account" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Too many attempts. Try again in 24 hours.");
    await act(() => setLanguage("es"));
    await userEvent.click(screen.getByRole("button", { name: "Conectar cuenta" }));
    await waitFor(() => expect(screen.getByRole("alert")).toHaveTextContent("Demasiados intentos. Inténtalo de nuevo en 24 horas."));
  });

  it("the code page says how long to wait after a 429", async () => {
    mockApi([
      {
        path: "/api/driver/connection",
        reply: () => ({
          body: { ...notConnected, pending: { attemptId: "B".repeat(24), kind: "code", destination: "d•••@x.com", email: "d@x.com", expiresAt: 0 } },
        }),
      },
      { method: "POST", path: "/api/driver/connection/code", reply: () => tooMany(61) },
    ]);
    renderScreen(<CodePage />, { user: sparkDriver, path: "/flex/otp" });
    await userEvent.type(await screen.findByLabelText("Verification code"), "111111");
    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Too many attempts. Try again in 2 minutes.");
  });

  it("the approval page, told to wait (429), says how long and asks again only once the wait is over", async () => {
    let asked = 0;
    const api = mockApi([
      { path: "/api/driver/connection", reply: () => ({ body: notConnected }) },
      { method: "POST", path: "/api/driver/connection/approval", reply: () => (asked++ === 0 ? tooMany(20) : { body: { status: "connected" } }) },
    ]);
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const router = renderScreen(<ApprovalPage />, { user: sparkDriver, path: "/flex/confirm" });
      await router.navigate("/flex/confirm", { state: { attemptId: "C".repeat(24) } });
      expect(await screen.findByText("Too many attempts. Try again in 20 seconds.")).toBeInTheDocument();
      await vi.advanceTimersByTimeAsync(15_000);
      expect(api.to("/api/driver/connection/approval", "POST")).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(6_000);
      await waitFor(() => expect(router.state.location.pathname).toBe("/flex/settings"));
      expect(api.to("/api/driver/connection/approval", "POST")).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it("the approval page waits, then moves on once approved; Cancel ends the attempt", async () => {
    let asked = 0;
    const api = mockApi([
      { path: "/api/driver/connection", reply: () => ({ body: notConnected }) },
      { method: "POST", path: "/api/driver/connection/approval", reply: () => ({ body: asked++ < 1 ? { status: "pending" } : { status: "connected" } }) },
    ]);
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const router = renderScreen(<ApprovalPage />, { user: sparkDriver, path: "/flex/confirm" });
      await router.navigate("/flex/confirm", { state: { attemptId: "C".repeat(24) } });
      expect(await screen.findByText("Waiting for your approval…")).toBeInTheDocument();
      await vi.advanceTimersByTimeAsync(3500);
      await waitFor(() => expect(router.state.location.pathname).toBe("/flex/settings"));
      expect(api.to("/api/driver/connection/approval", "POST").length).toBeGreaterThanOrEqual(2);
    } finally {
      vi.useRealTimers();
    }
  });
});

const stations = [
  { id: "DLA7", name: "Hawthorne (DLA7)", code: "DLA7", group: "Los Angeles, CA", timeZone: "America/Los_Angeles", zoneSource: "catalogue" },
  { id: "DAX5", name: "Irvine (DAX5)", code: "DAX5", group: "Los Angeles, CA", timeZone: "America/Los_Angeles", zoneSource: "catalogue" },
  { id: "DCH1", name: "Chicago (DCH1)", code: "DCH1", group: "Chicago, IL", timeZone: "America/Chicago", zoneSource: "catalogue" },
];

describe("filters", () => {
  it("turn dollars and hours into cents and minutes, and schema codes into the form's fields", () => {
    const values = toFormValues(stations, null);
    values.stations[2]!.selected = true;
    values.stations[2]!.minPay = "70.5";
    values.minHourly = "25";
    values.minHours = "2.5";
    const ok = fromFormValues(values);
    expect(ok.filters).toMatchObject({ stations: [{ id: "DCH1", minPayCents: 7050, minHourlyCents: null }], minHourlyCents: 2500, minDurationMinutes: 150 });
    values.stations[2]!.minHourly = "abc";
    values.maxHours = "1";
    values.schedule.mon = [{ start: "", end: "10:00" }];
    expect(fromFormValues(values).errors).toEqual({
      "stations.2.minHourly": "driver:errors.number",
      maxHours: "driver:errors.min_above_max",
      "schedule.mon.0": "driver:errors.clock",
    });
  });

  it("the page groups stations by city, refuses an empty set without calling the server, then saves", async () => {
    const api = mockApi([
      { path: "/api/driver/stations", reply: () => ({ body: { app: "flex", stations, zoneChoices: [] } }) },
      { path: "/api/driver/filters", reply: () => ({ body: { filters: null } }) },
      { method: "PUT", path: "/api/driver/filters", reply: (call) => ({ body: { filters: call.body, setupComplete: true } }) },
    ]);
    const router = renderScreen(<SettingsPage />, { user: driver, path: "/flex/settings" });
    const la = await screen.findByRole("group", { name: /Los Angeles, CA/ });
    expect(within(la).getAllByRole("checkbox")).toHaveLength(2);
    await userEvent.click(screen.getByRole("button", { name: "Save filters" }));
    expect(await screen.findByText("Pick at least one station")).toBeInTheDocument();
    expect(api.to("/api/driver/filters", "PUT")).toHaveLength(0);

    await userEvent.click(screen.getByLabelText("Chicago (DCH1)"));
    await userEvent.type(screen.getAllByLabelText(/Min. pay/)[0]!, "80");
    await userEvent.clear(screen.getByLabelText("Minimum $/hour"));
    await userEvent.type(screen.getByLabelText("Minimum $/hour"), "22.50");
    await userEvent.click(screen.getByRole("button", { name: "Save filters" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/flex/dashboard"));
    const sent = api.to("/api/driver/filters", "PUT")[0]!.body as Record<string, unknown>;
    expect(sent).toMatchObject({ stations: [{ id: "DCH1", minPayCents: 8000 }], minHourlyCents: 2250, arrivalBufferMinutes: 30 });
    expect(Object.keys(sent.schedule as object)).toHaveLength(7);
  });

  it("says how long to wait when the stations cannot be read yet (429), in English and Spanish", async () => {
    mockApi([
      {
        path: "/api/driver/stations",
        reply: () => ({
          status: 429,
          body: {
            error: { code: "rate_limited", message: "Too many attempts. Try again later", details: { reason: "too_many_attempts", retryAfterSeconds: 1790 } },
          },
        }),
      },
      { path: "/api/driver/filters", reply: () => ({ body: { filters: null } }) },
    ]);
    renderScreen(<SettingsPage />, { user: driver, path: "/flex/settings" });
    expect(await screen.findByRole("alert")).toHaveTextContent("Too many attempts. Try again in 30 minutes.");
    await act(() => setLanguage("es"));
    await waitFor(() => expect(screen.getByRole("alert")).toHaveTextContent("Demasiados intentos. Inténtalo de nuevo en 30 minutos."));
  });

  it("says it could not load when the platform does not answer", async () => {
    mockApi([
      { path: "/api/driver/stations", reply: () => ({ status: 503, body: { error: { code: "unavailable", message: "down" } } }) },
      { path: "/api/driver/filters", reply: () => ({ body: { filters: null } }) },
    ]);
    renderScreen(<SettingsPage />, { user: driver, path: "/flex/settings" });
    expect(await screen.findByRole("alert")).toHaveTextContent("Couldn't configure schedule");
  });
});

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

describe("calendar", () => {
  const week = "2031-05-12";
  const block = {
    id: 9,
    stationId: "DLA7",
    stationName: "DLA7 Hawthorne",
    timeZone: "America/Los_Angeles",
    // Wednesday 22:00 in Los Angeles is already Thursday in UTC: it belongs on Wednesday.
    startsAt: Date.parse("2031-05-14T22:00:00-07:00"),
    endsAt: Date.parse("2031-05-15T01:00:00-07:00"),
    payCents: 9000,
    arrivedAt: null,
  };
  const calendar = {
    driver: { name: "Dana Driver", phoneNumber: "+13055550123", app: "flex" },
    week,
    schedule: { wed: [{ start: "20:00", end: "02:00" }] },
    stations: [{ id: "DLA7", name: "DLA7 Hawthorne", region: "Los Angeles", timeZone: "America/Los_Angeles" }],
    blocks: [block],
  };

  it("puts blocks on their station-local day and forfeits after a confirm", async () => {
    const api = mockApi([
      { path: "/api/driver/calendar", reply: () => ({ body: calendar }) },
      { path: "/api/driver/filters", reply: () => ({ body: { filters: null } }) },
      { method: "POST", path: "/api/driver/offers/9/forfeit", reply: () => ({ body: { id: 9, forfeitedAt: Date.now() } }) },
    ]);
    renderScreen(<CalendarPage />, { user: driver, path: `/flex/calendar?week=${week}`, route: "/flex/calendar" });
    const wednesday = await screen.findByRole("region", { name: /Wednesday/ });
    expect(within(wednesday).getByText("20:00–02:00")).toBeInTheDocument();
    expect(within(wednesday).getByText("DLA7 Hawthorne")).toBeInTheDocument();
    expect(within(screen.getByRole("region", { name: /Thursday/ })).getByText("No blocks")).toBeInTheDocument();
    await userEvent.click(within(wednesday).getByRole("button", { name: "Forfeit" }));
    await userEvent.click(await screen.findByRole("button", { name: "Forfeit block" }));
    await waitFor(() => expect(api.to("/api/driver/offers/9/forfeit", "POST")).toHaveLength(1));
    expect(await screen.findByText("Block forfeited")).toBeInTheDocument();
    await waitFor(() => expect(api.to("/api/driver/calendar").length).toBeGreaterThan(1));
  });

  it("edits the week's windows as the settings form checks them, keeping the rest of the filters", async () => {
    const saved = {
      stations: [{ id: "DLA7", minPayCents: 7000 }],
      minPayCents: 5000,
      minHourlyCents: 2000,
      arrivalBufferMinutes: 30,
      minDurationMinutes: 0,
      maxDurationMinutes: 0,
      schedule: calendar.schedule,
      dailyCapMinutes: 0,
    };
    const api = mockApi([
      { path: "/api/driver/calendar", reply: () => ({ body: calendar }) },
      { path: "/api/driver/filters", reply: () => ({ body: { filters: saved } }) },
      { method: "PUT", path: "/api/driver/filters", reply: (call) => ({ body: { filters: call.body, setupComplete: true } }) },
    ]);
    renderScreen(<CalendarPage />, { user: driver, path: `/flex/calendar?week=${week}`, route: "/flex/calendar" });
    await userEvent.click(await screen.findByRole("button", { name: "Edit windows" }));
    await userEvent.click(await screen.findByRole("button", { name: "Remove window 20:00–02:00" }));
    await userEvent.click(screen.getByRole("button", { name: "Save windows" }));
    expect(await screen.findByText("Add at least one schedule window")).toBeInTheDocument();
    expect(api.to("/api/driver/filters", "PUT")).toHaveLength(0);

    const friday = screen.getByRole("group", { name: "Friday" });
    await userEvent.click(within(friday).getByRole("button", { name: "Add a window" }));
    await userEvent.clear(screen.getByLabelText("Friday To"));
    await userEvent.click(screen.getByRole("button", { name: "Save windows" }));
    expect(await screen.findByText("Use a time like 08:30")).toBeInTheDocument();
    expect(api.to("/api/driver/filters", "PUT")).toHaveLength(0);

    await userEvent.type(screen.getByLabelText("Friday To"), "12:00");
    await userEvent.click(screen.getByRole("button", { name: "Save windows" }));
    await waitFor(() => expect(api.to("/api/driver/filters", "PUT")).toHaveLength(1));
    expect(api.to("/api/driver/filters", "PUT")[0]!.body).toEqual({ ...saved, schedule: { fri: [{ start: "08:00", end: "12:00" }] } });
    expect(await screen.findByRole("button", { name: "Edit windows" })).toBeInTheDocument();
  });

  it("another driver's calendar, viewed too often (429): says how long to wait, in English and Spanish", async () => {
    const tooMany = {
      status: 429,
      body: {
        error: { code: "rate_limited", message: "Too many attempts. Try again later", details: { reason: "too_many_attempts", retryAfterSeconds: 7_000 } },
      },
    };
    mockApi([{ path: "/api/driver/calendar/+13055550123", reply: () => tooMany }]);
    renderScreen(<CalendarPage />, { user: driver, path: `/flex/calendar/+13055550123?week=${week}`, route: "/flex/calendar/:phoneNumber" });
    expect(await screen.findByText("Too many attempts. Try again in 2 hours.")).toBeInTheDocument();
    await act(() => setLanguage("es"));
    expect(await screen.findByText("Demasiados intentos. Inténtalo de nuevo en 2 horas.")).toBeInTheDocument();
  });

  it("another driver's calendar is read-only, and a refusal is said", async () => {
    mockApi([
      { path: "/api/driver/calendar/+13055550123", reply: () => ({ body: calendar }) },
      {
        path: "/api/driver/calendar/+13055550999",
        reply: () => ({ status: 403, body: { error: { code: "forbidden", message: "Only an administrator or the driver's reseller may see this calendar" } } }),
      },
    ]);
    renderScreen(<CalendarPage />, { user: driver, path: `/flex/calendar/+13055550123?week=${week}`, route: "/flex/calendar/:phoneNumber" });
    expect(await screen.findByRole("heading", { name: "Calendar of Dana Driver" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Forfeit" })).toBeNull();
    expect(screen.queryByRole("button", { name: /Edit windows/ })).toBeNull();
  });
});
