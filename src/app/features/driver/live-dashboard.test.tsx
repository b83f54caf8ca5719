import { act, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { StaticSessionProvider, signedOutSession } from "../../lib/session";
import { mockApi, renderScreen } from "../../test/admin-harness";
import { driver, resetEachTest } from "../../test/driver-screens";
import { aDriver, signedIn } from "../../test/render";
import { LIVE_REFRESH_MS, type OfferRow, type OffersPage } from "./api";
import DashboardPage from "./DashboardPage";
import { keepLive, type LiveEvent, offersAt, RETRY_FIRST_MS, useLiveDashboard, useLiveOpen, withOffer } from "./live-dashboard";

resetEachTest();

const HOUR = 3_600_000;
const now = Date.now();

const row = (over: Partial<OfferRow> = {}): OfferRow =>
  ({
    id: 1,
    status: "won",
    stationId: "DCH1",
    stationName: "DCH1 Chicago",
    timeZone: "America/Chicago",
    startsAt: now + 5 * HOUR,
    endsAt: now + 7 * HOUR,
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
  }) as OfferRow;

const pageOf = (rows: OfferRow[], counts = { won: rows.length, disliked: 0, gone: 0 }): OffersPage =>
  ({ total: rows.length, page: 1, pageSize: 20, counts, filters: null, rows }) as OffersPage;

/** A WebSocket the test drives: it opens, hears and closes when told. */
class FakeSocket {
  static made: FakeSocket[] = [];
  readyState = 0;
  sent: string[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((e: { data: string }) => void) | null = null;
  onclose: ((e: { code: number }) => void) | null = null;
  onerror: (() => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.made.push(this);
  }
  send(data: string) {
    this.sent.push(data);
  }
  close(code = 1000) {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.onclose?.({ code });
  }
  opened() {
    this.readyState = 1;
    this.onopen?.();
  }
  hear(message: unknown) {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
}

describe("what a message does to a page of offers", () => {
  it("a new row goes first on the first page of its tab, the counts and total follow; another tab or page keeps its rows", () => {
    const page = pageOf([row({ id: 1 })]);
    const fresh = row({ id: 2, status: "disliked", reasons: ["pay"], seenAt: now, canForfeit: false });
    const counts = { won: 1, disliked: 1, gone: 0 };
    expect(withOffer(page, { page: 1, pageSize: 20 }, fresh, counts)).toMatchObject({ total: 2, counts, rows: [{ id: 2 }, { id: 1 }] });
    expect(withOffer(page, { page: 1, pageSize: 20, status: "won" }, fresh, counts)).toMatchObject({ total: 1, rows: [{ id: 1 }] });
    expect(withOffer(page, { page: 2, pageSize: 20 }, fresh, counts)).toMatchObject({ total: 2, rows: [{ id: 1 }] });
    // A full page keeps its size.
    expect(withOffer(page, { page: 1, pageSize: 1 }, fresh, counts).rows.map((r) => r.id)).toEqual([2]);
  });

  it("a row the page has is replaced, or leaves a tab it no longer belongs to", () => {
    const page = pageOf([row({ id: 2, seenAt: now }), row({ id: 1, status: "disliked", reasons: ["pay"] })], { won: 1, disliked: 1, gone: 0 });
    const judgedAgain = row({ id: 1, status: "won", seenAt: now + 1000 });
    const counts = { won: 2, disliked: 0, gone: 0 };
    // Judged again, its record's time moved: it is the newest now.
    expect(withOffer(page, { page: 1, pageSize: 20 }, judgedAgain, counts).rows.map((r) => [r.id, r.status])).toEqual([
      [1, "won"],
      [2, "won"],
    ]);
    expect(withOffer(page, { page: 1, pageSize: 20, status: "disliked" }, judgedAgain, counts)).toMatchObject({ total: 0, rows: [{ id: 2 }] });
  });

  it("as the clock moves, I've arrived opens an hour before the block and a forfeit closes at its start", () => {
    const page = pageOf([row({ startsAt: now + 2 * HOUR, endsAt: now + 4 * HOUR })]);
    expect(offersAt(page, now)).toBe(page);
    expect(offersAt(page, now + HOUR + 1).rows[0]).toMatchObject({ canCheckIn: true, canForfeit: true });
    expect(offersAt(page, now + 2 * HOUR + 1).rows[0]).toMatchObject({ canCheckIn: true, canForfeit: false });
    expect(offersAt(page, now + 4 * HOUR).rows[0]).toMatchObject({ canCheckIn: false, canForfeit: false });
  });
});

describe("the socket", () => {
  function harness(ticket: () => Promise<{ ticket: string }>) {
    FakeSocket.made = [];
    const timers: { fn: () => void; ms: number; id: number }[] = [];
    let ids = 0;
    const events: LiveEvent[] = [];
    const open: boolean[] = [];
    const stop = keepLive(
      { event: (e) => events.push(e), open: (o) => open.push(o) },
      {
        ticket,
        WebSocket: FakeSocket as unknown as typeof WebSocket,
        origin: "https://app.test",
        setTimeout: ((fn: () => void, ms: number) => {
          timers.push({ fn, ms, id: ++ids });
          return ids;
        }) as unknown as typeof setTimeout,
        clearTimeout: ((id: number) => {
          const i = timers.findIndex((t) => t.id === id);
          if (i >= 0) timers.splice(i, 1);
        }) as unknown as typeof clearTimeout,
      },
    );
    const runRetry = async () => {
      const next = timers.shift();
      next?.fn();
      await Promise.resolve();
      await Promise.resolve();
      return next?.ms;
    };
    return { timers, events, open, stop, runRetry };
  }

  it("opens with a ticket (never an ID token) and tells the reads it opened", async () => {
    const h = harness(async () => ({ ticket: "7.secret" }));
    await vi.waitFor(() => expect(FakeSocket.made).toHaveLength(1));
    expect(FakeSocket.made[0]!.url).toBe("wss://app.test/api/driver/live?ticket=7.secret");
    FakeSocket.made[0]!.opened();
    expect(h.open).toEqual([true]);
    expect(h.events).toEqual([{ kind: "open" }]);
    FakeSocket.made[0]!.hear({ type: "engine", engine: { engine: { state: "stopped", reason: "driver" }, service: {}, now } });
    expect(h.events[1]).toMatchObject({ kind: "message", message: { type: "engine" } });
    h.stop();
  });

  it("a ticket refused, a socket that cannot be made, or one that drops: tried again after a growing wait", async () => {
    let fail = true;
    const h = harness(async () => {
      if (fail) throw new Error("offline");
      return { ticket: "7.secret" };
    });
    await vi.waitFor(() => expect(h.timers).toHaveLength(1));
    expect(h.open).toEqual([false]);
    const first = h.timers[0]!.ms;
    expect(first).toBeGreaterThanOrEqual(RETRY_FIRST_MS * 0.8);
    await h.runRetry();
    await vi.waitFor(() => expect(h.timers).toHaveLength(1));
    expect(h.timers[0]!.ms).toBeGreaterThan(first);
    fail = false;
    await h.runRetry();
    await vi.waitFor(() => expect(FakeSocket.made).toHaveLength(1));
    FakeSocket.made[0]!.opened();
    // Dropped (no close frame): polling again, and the socket tried again later.
    h.timers.length = 0;
    FakeSocket.made[0]!.close(1006);
    expect(h.open.at(-1)).toBe(false);
    expect(h.timers).toHaveLength(1);
    h.stop();
  });

  it("pings every 30 s: a pong keeps it, none within 10 s closes it and polling takes over", async () => {
    const h = harness(async () => ({ ticket: "7.secret" }));
    await vi.waitFor(() => expect(FakeSocket.made).toHaveLength(1));
    const socket = FakeSocket.made[0]!;
    socket.opened();
    const run = (ms: number) => {
      const t = h.timers.find((x) => x.ms === ms)!;
      h.timers.splice(h.timers.indexOf(t), 1);
      t.fn();
    };
    run(30_000);
    expect(socket.sent).toEqual(["ping"]);
    socket.onmessage?.({ data: "pong" });
    expect(h.timers.some((t) => t.ms === 10_000)).toBe(false);
    run(30_000);
    expect(socket.sent).toEqual(["ping", "ping"]);
    run(10_000);
    expect(socket.readyState).toBe(3);
    expect(h.open.at(-1)).toBe(false);
    h.stop();
  });

  it("after its session's expiry it opens a new one at once; after a sign-out or an erasure, never", async () => {
    const h = harness(async () => ({ ticket: "7.secret" }));
    await vi.waitFor(() => expect(FakeSocket.made).toHaveLength(1));
    FakeSocket.made[0]!.opened();
    h.timers.length = 0;
    FakeSocket.made[0]!.close(4002);
    expect(h.timers.map((t) => t.ms)).toEqual([0]);
    await h.runRetry();
    await vi.waitFor(() => expect(FakeSocket.made).toHaveLength(2));
    FakeSocket.made[1]!.opened();
    h.timers.length = 0;
    FakeSocket.made[1]!.close(4001);
    expect(h.timers).toEqual([]);
    expect(h.open.at(-1)).toBe(false);
    h.stop();
  });
});

describe("the dashboard", () => {
  /** What the server's offers page holds now. */
  let held: OfferRow[] = [];
  function dashboardApi() {
    held = [];
    return mockApi([
      {
        path: "/api/driver/engine",
        reply: () => ({
          body: {
            engine: {
              state: "searching",
              stations: 3,
              until: Date.parse("2030-01-01T20:00:00Z"),
              slowedUntil: null,
              lastPollAt: now,
              timeZone: "America/Chicago",
            },
            service: { expiresAt: now + 2 * 86_400_000 + HOUR, goodStanding: true },
            now,
          },
        }),
      },
      { path: "/api/driver/offers", reply: () => ({ body: pageOf(held) }) },
      { method: "POST", path: "/api/driver/live-ticket", reply: () => ({ status: 201, body: { ticket: "7.secret", expiresAt: now + 60_000 } }) },
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
  const user = { ...driver, accountConnected: true, setupComplete: true };

  it("while its socket is open nothing polls, and a won block arrives over it; dropped, it polls again without a word", async () => {
    FakeSocket.made = [];
    vi.stubGlobal("WebSocket", FakeSocket);
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const api = dashboardApi();
      renderScreen(<DashboardPage />, { user, path: "/flex/dashboard" });
      expect(await screen.findByText("Searching 3 stations until 2:00 PM")).toBeInTheDocument();
      await vi.waitFor(() => expect(FakeSocket.made).toHaveLength(1));
      await act(async () => FakeSocket.made[0]!.opened());
      await act(() => vi.advanceTimersByTimeAsync(100));
      const reads = () => api.to("/api/driver/engine").length + api.to("/api/driver/offers").length;
      const before = reads();
      await act(() => vi.advanceTimersByTimeAsync(3 * LIVE_REFRESH_MS + 100));
      expect(reads()).toBe(before);

      const won = row({ id: 9, stationName: "DCH9 Live" });
      held = [won];
      await act(async () => FakeSocket.made[0]!.hear({ type: "offer", offer: won, counts: { won: 1, disliked: 0, gone: 0 } }));
      await act(() => vi.advanceTimersByTimeAsync(100));
      expect(screen.getByText("DCH9 Live")).toBeInTheDocument();
      expect(screen.getByRole("button", { name: "Won (1)" })).toBeInTheDocument();
      expect(reads()).toBe(before);

      await act(async () => FakeSocket.made[0]!.close(1006));
      await act(() => vi.advanceTimersByTimeAsync(LIVE_REFRESH_MS + 100));
      expect(api.to("/api/driver/engine").length).toBeGreaterThan(0);
      expect(reads()).toBeGreaterThan(before);
      expect(screen.queryByRole("alert")).toBeNull();
      expect(screen.getByText("DCH9 Live")).toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });

  it("where a WebSocket cannot be made at all, it polls as before", async () => {
    vi.stubGlobal(
      "WebSocket",
      class {
        constructor() {
          throw new Error("blocked");
        }
      },
    );
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const api = dashboardApi();
      renderScreen(<DashboardPage />, { user, path: "/flex/dashboard" });
      expect(await screen.findByText("Searching 3 stations until 2:00 PM")).toBeInTheDocument();
      const first = api.to("/api/driver/engine").length;
      await act(() => vi.advanceTimersByTimeAsync(2 * LIVE_REFRESH_MS + 100));
      expect(api.to("/api/driver/engine").length).toBeGreaterThanOrEqual(first + 2);
      expect(api.to("/api/driver/live-ticket", "POST").length).toBeGreaterThan(0);
      expect(screen.queryByRole("alert")).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("signing out", () => {
  it("closes the socket, and the reads it fed poll again", async () => {
    FakeSocket.made = [];
    vi.stubGlobal("WebSocket", FakeSocket);
    mockApi([{ method: "POST", path: "/api/driver/live-ticket", reply: () => ({ status: 201, body: { ticket: "7.secret", expiresAt: now + 60_000 } }) }]);
    function Live() {
      useLiveDashboard();
      return <p>{useLiveOpen() ? "live" : "polling"}</p>;
    }
    const { rerender } = render(
      <StaticSessionProvider value={signedIn(aDriver())}>
        <Live />
      </StaticSessionProvider>,
    );
    await vi.waitFor(() => expect(FakeSocket.made).toHaveLength(1));
    await act(async () => FakeSocket.made[0]!.opened());
    expect(screen.getByText("live")).toBeInTheDocument();
    rerender(
      <StaticSessionProvider value={signedOutSession}>
        <Live />
      </StaticSessionProvider>,
    );
    expect(FakeSocket.made[0]!.readyState).toBe(3);
    expect(screen.getByText("polling")).toBeInTheDocument();
    // And no new one opens while signed out.
    await new Promise((r) => setTimeout(r, 50));
    expect(FakeSocket.made).toHaveLength(1);
  });
});
