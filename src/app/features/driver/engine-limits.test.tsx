/**
 * The dashboard and the calendar under the platform's limits: a lockout ("Rate exceeded"), a stop
 * for the phone app's request signature, accepting held for a captcha or a signature, and forfeits
 * that wait for a lockout's end. In English and Spanish; the administrator's acting-for view read-only.
 */
import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLanguage } from "../../i18n";
import type { User } from "../../lib/session";
import { mockApi, type Route, renderScreen } from "../../test/admin-harness";
import CalendarPage from "./CalendarPage";
import DashboardPage, { DriverDashboard } from "./DashboardPage";

const driver = { name: "Dana Driver", isAdmin: false, app: "flex", email: null, accountConnected: true, setupComplete: true } as Partial<User>;
const HOUR = 3_600_000;
const now = Date.now();
const CHICAGO = "America/Chicago";
/** 13:34 and 14:05 in Chicago (UTC−6 in January). */
const since = Date.parse("2030-01-08T19:34:00Z");
const until = Date.parse("2030-01-08T20:05:00Z");

beforeEach(() => setLanguage("en"));
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const searching = (acceptHold: unknown = null) => ({
  state: "searching",
  stations: 2,
  until,
  slowedUntil: null,
  lastPollAt: now,
  timeZone: CHICAGO,
  acceptHold,
});
const rateLimited = (forfeitsWaiting: number) => ({ state: "rate_limited", stations: 2, since, until, timeZone: CHICAGO, forfeitsWaiting, acceptHold: null });
const signatureRequired = (signerConfigured: boolean) => ({ state: "signature_required", stations: 2, since, timeZone: CHICAGO, signerConfigured });

const wonRow = (over: Record<string, unknown> = {}) => ({
  id: 1,
  status: "won",
  stationId: "DCH1",
  stationName: "DCH1 Chicago",
  timeZone: CHICAGO,
  startsAt: now + 26 * HOUR,
  endsAt: now + 29 * HOUR,
  payCents: 7200,
  reasons: [],
  seenAt: now - 60_000,
  forfeitedAt: null,
  forfeitQueuedAt: null,
  arrivedAt: null,
  canCheckIn: false,
  canForfeit: true,
  checkInAvailable: true,
  forfeitable: true,
  ...over,
});

/** The dashboard's reads, at the driver's routes or (acting for driver 7) the administrator's. */
function dashboardApi(engine: () => unknown, { rows = [wonRow()], base = "/api/driver", extra = [] as Route[] } = {}) {
  const reads = base === "/api/driver" ? base : `${base}/dashboard`;
  const offers = `${reads}/offers`;
  const engineAt = `${reads}/engine`;
  return mockApi([
    ...extra,
    { path: engineAt, reply: () => ({ body: { engine: engine(), service: { expiresAt: now + 3 * 86_400_000, goodStanding: true }, now } }) },
    {
      path: offers,
      reply: () => ({ body: { total: rows.length, page: 1, pageSize: 20, counts: { won: rows.length, disliked: 0, gone: 0 }, filters: null, rows } }),
    },
    { path: "/api/payments", reply: () => ({ body: { total: 0, page: 1, pageSize: 20, rows: [] } }) },
    {
      path: "/api/invitations",
      reply: () => ({
        body: {
          total: 0,
          page: 1,
          pageSize: 20,
          rows: [],
          summary: { invited: 0, registered: 0, paid: 0, free_week: 0, freeWeeksEarned: 0, remainingToday: 20 },
        },
      }),
    },
  ]);
}

const openDashboard = () => renderScreen(<DashboardPage />, { user: driver, path: "/flex/dashboard" });
/** The polite announcement under the engine's words. */
const notice = () =>
  waitFor(() => {
    const found = screen.getAllByRole("status").find((el) => el.classList.contains("callout"));
    if (!found) throw new Error("no notice yet");
    return found;
  });

describe("the dashboard under the platform's limits", () => {
  it("a lockout says when searching resumes in station time, the forfeits waiting and that service time runs on, in English and Spanish", async () => {
    dashboardApi(() => rateLimited(2));
    openDashboard();
    expect(await screen.findByText("The platform is limiting your account; searching resumes at 2:05 PM.")).toBeInTheDocument();
    // Still on: the switch says so, and nothing reads as an error.
    expect(screen.getByRole("switch", { name: /Search for blocks/ })).toHaveAttribute("aria-checked", "true");
    expect(screen.queryByRole("alert")).toBeNull();
    const status = await notice();
    expect(status).toHaveTextContent("The platform answered “Rate exceeded” at 1:34 PM.");
    expect(status).toHaveTextContent("2 forfeits you asked for wait until then, and are sent as soon as the limit ends.");
    expect(status).toHaveTextContent("Your paid service time keeps running meanwhile. If the limit cost you working time, support can credit you days.");

    await act(() => setLanguage("es"));
    expect(await screen.findByText("La plataforma está limitando tu cuenta; a las 2:05 p.m. se reanuda la búsqueda.")).toBeInTheDocument();
    expect(await notice()).toHaveTextContent("A las 1:34 p.m. la plataforma respondió “Rate exceeded”.");
    expect(await notice()).toHaveTextContent("2 cesiones que pediste esperan hasta entonces y se envían en cuanto termine el límite.");
    expect(await notice()).toHaveTextContent("Tu tiempo de servicio pagado sigue corriendo mientras tanto.");
  });

  it("a lockout with no forfeit asked says nothing of forfeits", async () => {
    dashboardApi(() => rateLimited(0));
    openDashboard();
    const status = await notice();
    expect(status).toHaveTextContent("Your paid service time keeps running meanwhile.");
    expect(status.textContent).not.toMatch(/forfeit/i);
  });

  it("a signature stop says why searching stopped, since when, and whether a signer is set up, in English and Spanish", async () => {
    let signer = false;
    const api = dashboardApi(() => signatureRequired(signer));
    openDashboard();
    expect(
      await screen.findByText("Searching stopped: the platform asks every request to carry a signature made by its phone app, which we do not make."),
    ).toBeInTheDocument();
    expect(await notice()).toHaveTextContent("Since Tue, Jan 8, 1:34 PM.");
    expect(await notice()).toHaveTextContent("No request signer is set up for this account, so searching stays stopped until support clears it.");
    await act(() => setLanguage("es"));
    expect(await screen.findByText(/^Búsqueda detenida: la plataforma pide que cada solicitud lleve una firma/)).toBeInTheDocument();
    expect(await notice()).toHaveTextContent("Esta cuenta no tiene un firmante de solicitudes");

    signer = true;
    await act(() => setLanguage("en"));
    await waitFor(() => expect(api.to("/api/driver/engine").length).toBeGreaterThan(1), { timeout: 5000 });
    await waitFor(() => expect(screen.getByText(/A request signer is set up for this account/)).toBeInTheDocument(), { timeout: 5000 });
    expect(screen.getByRole("switch", { name: /Search for blocks/ })).toHaveAttribute("aria-checked", "true");
  });

  it("accepting held for a captcha: “I solved it” tells the engine, and a hold already gone (409 no_captcha) or a failure is said", async () => {
    let held = true;
    let answer: () => { status?: number; body: unknown } = () => {
      held = false;
      return { body: { engine: searching() } };
    };
    const api = dashboardApi(() => searching(held ? { reason: "captcha", since } : null), {
      extra: [{ method: "POST", path: "/api/driver/engine/captcha-solved", reply: () => answer() }],
    });
    openDashboard();
    expect(await screen.findByText("Searching 2 stations until 2:05 PM")).toBeInTheDocument();
    const status = await notice();
    expect(status).toHaveTextContent("Accepting is paused since 1:34 PM: the platform asked for a captcha before accepting a block. Searching goes on.");
    expect(status).toHaveTextContent("Solve it in the Amazon Flex app or on its website, then press “I solved it”");
    await userEvent.click(screen.getByRole("button", { name: "I solved it" }));
    expect(await screen.findByText("Thanks: the next matching block gets one try to accept.")).toBeInTheDocument();
    expect(api.to("/api/driver/engine/captcha-solved", "POST")).toHaveLength(1);
    // The engine is read again: the hold is gone, and the button with it.
    await waitFor(() => expect(screen.queryByRole("button", { name: "I solved it" })).toBeNull());

    held = true;
    answer = () => {
      held = false;
      return { status: 409, body: { error: { code: "conflict", message: "Accepting is not held for a captcha", details: { reason: "no_captcha" } } } };
    };
    await act(() => setLanguage("es"));
    await userEvent.click(await screen.findByRole("button", { name: "Ya lo resolví" }, { timeout: 5000 }));
    expect(await screen.findByText("Aceptar ya no está en pausa por un captcha.")).toBeInTheDocument();
    expect(screen.queryByText("Accepting is not held for a captcha")).toBeNull();

    held = true;
    answer = () => ({ status: 503, body: { error: { code: "unavailable", message: "The engine is not answering", details: {} } } });
    await userEvent.click(await screen.findByRole("button", { name: "Ya lo resolví" }, { timeout: 5000 }));
    expect(await screen.findByText("The engine is not answering")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Ya lo resolví" })).toBeEnabled();
  });

  it("accepting held for a signature says it waits for support, with no button, in English and Spanish", async () => {
    dashboardApi(() => searching({ reason: "signature", since }));
    openDashboard();
    expect(await notice()).toHaveTextContent(
      "Accepting is paused since 1:34 PM: the platform asked for its phone app's signature to accept a block, which we do not make. Searching goes on; accepting resumes when support clears it.",
    );
    expect(screen.queryByRole("button", { name: "I solved it" })).toBeNull();
    await act(() => setLanguage("es"));
    await waitFor(async () => expect(await notice()).toHaveTextContent("Aceptar está en pausa desde las 1:34 p.m.: la plataforma pidió la firma"));
  });

  it("a won block whose forfeit is queued says it waits for the limit, in English and Spanish", async () => {
    dashboardApi(() => rateLimited(1), { rows: [wonRow({ forfeitQueuedAt: now - 60_000 })] });
    openDashboard();
    const row = (await screen.findAllByRole("row")).find((r) => r.getAttribute("data-status") === "won")!;
    expect(within(row).getByText("Forfeit asked: it is sent when the platform's limit ends.")).toBeInTheDocument();
    await act(() => setLanguage("es"));
    expect(await screen.findByText("Cesión pedida: se envía cuando termine el límite de la plataforma.")).toBeInTheDocument();
  });

  it("acting for the driver, an administrator sees the same states read-only: the captcha is the driver's to solve", async () => {
    const api = dashboardApi(() => searching({ reason: "captcha", since }), { base: "/api/admin/users/7" });
    renderScreen(<DriverDashboard app="flex" driverId={7} readOnly onSwitch={async () => {}} calendarHref="/flex/calendar/x" />, {
      path: "/admin/users/7/dashboard",
    });
    expect(await notice()).toHaveTextContent("The driver solves it in the Amazon Flex app or website and presses “I solved it” on their dashboard.");
    expect(screen.queryByRole("button", { name: "I solved it" })).toBeNull();
    expect(api.to("/api/driver/engine")).toHaveLength(0);
  });
});

describe("the calendar under a lockout", () => {
  const week = "2031-05-12";
  const block = {
    id: 9,
    stationId: "DLA7",
    stationName: "DLA7 Hawthorne",
    timeZone: "America/Los_Angeles",
    startsAt: Date.parse("2031-05-14T10:00:00-07:00"),
    endsAt: Date.parse("2031-05-14T13:00:00-07:00"),
    payCents: 9000,
    arrivedAt: null,
    forfeitQueuedAt: null as number | null,
  };
  const calendar = (blocks: (typeof block)[]) => ({
    driver: { name: "Dana Driver", phoneNumber: "+13055550123", app: "flex" },
    week,
    schedule: {},
    stations: [{ id: "DLA7", name: "DLA7 Hawthorne", region: "Los Angeles", timeZone: "America/Los_Angeles" }],
    blocks,
  });
  /** 09:40 in Los Angeles. */
  const sendsAt = Date.parse("2031-05-13T09:40:00-07:00");

  it("a forfeit answered 202 says when it will be sent; the block then says its forfeit waits, in English and Spanish", async () => {
    const queued = new Set<number>();
    const thursdayBlock = { ...block, id: 10, startsAt: block.startsAt + 86_400_000, endsAt: block.endsAt + 86_400_000 };
    const api = mockApi([
      {
        path: "/api/driver/calendar",
        reply: () => ({ body: calendar([block, thursdayBlock].map((b) => ({ ...b, forfeitQueuedAt: queued.has(b.id) ? Date.now() : null }))) }),
      },
      { path: "/api/driver/filters", reply: () => ({ body: { filters: null } }) },
      {
        method: "POST",
        path: /^\/api\/driver\/offers\/(9|10)\/forfeit$/,
        reply: (call) => {
          queued.add(Number(call.url.pathname.split("/")[4]));
          return { status: 202, body: { queued: true, sendsAt } };
        },
      },
    ]);
    renderScreen(<CalendarPage />, { user: driver, path: `/flex/calendar?week=${week}`, route: "/flex/calendar" });
    const wednesday = await screen.findByRole("region", { name: /Wednesday/ });
    await userEvent.click(within(wednesday).getByRole("button", { name: "Forfeit" }));
    await userEvent.click(await screen.findByRole("button", { name: "Forfeit block" }));
    expect(await screen.findByText("The platform is limiting your account: the forfeit will be sent at 9:40 AM.")).toBeInTheDocument();
    expect(screen.queryByText("Block forfeited")).toBeNull();
    expect(api.to("/api/driver/offers/9/forfeit", "POST")).toHaveLength(1);
    expect(await within(wednesday).findByText("Forfeit waits for the platform's limit to end")).toBeInTheDocument();
    expect(within(wednesday).queryByRole("button", { name: "Forfeit" })).toBeNull();
    await act(() => setLanguage("es"));
    expect(await within(wednesday).findByText("La cesión espera a que termine el límite de la plataforma")).toBeInTheDocument();
    const thursday = screen.getByRole("region", { name: /jueves/ });
    await userEvent.click(within(thursday).getByRole("button", { name: "Ceder" }));
    await userEvent.click(await screen.findByRole("button", { name: "Ceder bloque" }));
    expect(await screen.findByText("La plataforma está limitando tu cuenta: a las 9:40 a.m. se enviará la cesión.")).toBeInTheDocument();
  });
});
