/**
 * The driver's own dashboard kept live over a WebSocket (docs/engine.md, "The live dashboard"):
 * a ticket from POST /api/driver/live-ticket opens GET /api/driver/live, whose messages are the
 * engine's view and each offer's row as the reads answer them. While the socket is open the
 * dashboard's reads do not poll (api.ts reads `useLiveOpen`); when it cannot open or drops, they
 * poll as before, quietly, and the socket is tried again with a growing wait. Each opening reads
 * the offers once, so what came while it was down is filled in. The administrator's acting-for
 * view never opens one: it polls.
 */
import type { InferResponseType } from "hono/client";
import { useEffect, useSyncExternalStore } from "react";
import { rowActions } from "../../../shared/offer-row-actions";
import { api, unwrap } from "../../lib/api-client";
import { useSession } from "../../lib/session";

// The reads' own answers (api.ts names them too; it imports this module, so they are named here from the routes).
type EngineView = InferResponseType<typeof api.driver.engine.$get, 200>;
type OffersPage = InferResponseType<typeof api.driver.offers.$get, 200>;
type OfferRow = OffersPage["rows"][number];
type OfferStatus = OfferRow["status"];

export type LiveMessage = { type: "engine"; engine: EngineView } | { type: "offer"; offer: OfferRow; counts: OffersPage["counts"] };
/** What the socket's listeners hear: it opened (read what was missed), a message, or a minute passed (the clock's words move on). */
export type LiveEvent = { kind: "open" } | { kind: "message"; message: LiveMessage } | { kind: "tick"; serverNow: number };

/** The server's close codes (src/worker/platform/live-dashboard.ts): after these two the socket is not tried again. */
const ENDED = new Set([4001, 4003]);
/** The session's socket reached its expiry: a new ticket opens the next one at once. */
const EXPIRED = 4002;
const PING_EVERY_MS = 30_000;
/** No pong this long after a ping: the socket is taken as dropped. */
const PONG_WITHIN_MS = 10_000;
const TICK_EVERY_MS = 60_000;
export const RETRY_FIRST_MS = 2_000;
export const RETRY_MAX_MS = 60_000;
/** A socket that stayed open this long starts the waits again from the first. */
const STEADY_MS = 60_000;

// ---- Whether the socket is open, and its listeners (one socket per page) ----

let open = false;
const openListeners = new Set<() => void>();
const eventListeners = new Set<(event: LiveEvent) => void>();

function setOpen(value: boolean) {
  if (open === value) return;
  open = value;
  for (const l of openListeners) l();
}

/** Whether the live dashboard's socket is open: the reads it feeds do not poll meanwhile. */
export function useLiveOpen(): boolean {
  return useSyncExternalStore(
    (l) => {
      openListeners.add(l);
      return () => openListeners.delete(l);
    },
    () => open,
    () => false,
  );
}

/** Listens to the socket while `enabled` (the driver's own reads; the acting-for view's are not). */
export function useLiveEvents(enabled: boolean, listener: (event: LiveEvent) => void): void {
  useEffect(() => {
    if (!enabled) return;
    eventListeners.add(listener);
    return () => {
      eventListeners.delete(listener);
    };
  }, [enabled, listener]);
}

function emit(event: LiveEvent) {
  for (const l of eventListeners) l(event);
}

// ---- What a message does to a page of offers ----

export type OffersQuery = { page: number; pageSize: number; status?: OfferStatus };

/**
 * A page of offers with one row as the socket brought it: the counts replaced; the row replaced
 * where the page has it (or taken off a tab it no longer belongs to), or put first on the first
 * page of a tab it belongs to (the newest is first). Other pages keep their rows until read.
 */
export function withOffer(page: OffersPage, query: OffersQuery, row: OfferRow, counts: OffersPage["counts"]): OffersPage {
  const total = query.status ? counts[query.status] : counts.won + counts.disliked + counts.gone;
  const belongs = !query.status || row.status === query.status;
  const others = page.rows.filter((r) => r.id !== row.id);
  const had = others.length !== page.rows.length;
  let rows = page.rows;
  if (!belongs) rows = others;
  else if (had) rows = page.rows.map((r) => (r.id === row.id ? row : r));
  else if (query.page === 1) rows = [row, ...others].slice(0, query.pageSize);
  if (belongs && rows !== page.rows) rows = [...rows].sort((a, b) => b.seenAt - a.seenAt || b.id - a.id);
  return { ...page, counts, total, rows };
}

/** A page's rows as the clock at `now` (the server's) makes them: "I've arrived" and forfeits open and close with time. */
export function offersAt(page: OffersPage, now: number): OffersPage {
  let changed = false;
  const rows = page.rows.map((r) => {
    const actions = rowActions(r, now);
    if (actions.canCheckIn === r.canCheckIn && actions.canForfeit === r.canForfeit) return r;
    changed = true;
    return { ...r, ...actions };
  });
  return changed ? { ...page, rows } : page;
}

// ---- The socket ----

type Deps = {
  ticket: () => Promise<{ ticket: string }>;
  WebSocket: typeof WebSocket;
  origin: string;
  setTimeout: typeof setTimeout;
  clearTimeout: typeof clearTimeout;
};

const defaultDeps = (): Deps => ({
  ticket: () => unwrap(api.driver["live-ticket"].$post()),
  WebSocket: globalThis.WebSocket,
  origin: window.location.origin,
  setTimeout: (...args: Parameters<typeof setTimeout>) => globalThis.setTimeout(...args),
  clearTimeout: (id) => globalThis.clearTimeout(id),
});

/**
 * Keeps a socket open, tried again after a growing wait (2 s doubling to a minute, with jitter)
 * whenever it cannot open or drops, at once when it reached its session's expiry, never after the
 * server said the session or the account ended. Answers the function that closes it for good.
 */
export function keepLive(sink: { event: (e: LiveEvent) => void; open: (isOpen: boolean) => void }, deps: Deps = defaultDeps()): () => void {
  let stopped = false;
  let socket: WebSocket | null = null;
  let wait = RETRY_FIRST_MS;
  let retry: ReturnType<typeof setTimeout> | undefined;
  /** The open socket's timers: the next ping, the pong it waits for, the next tick. */
  const timers: Record<"ping" | "pong" | "tick", ReturnType<typeof setTimeout> | undefined> = { ping: undefined, pong: undefined, tick: undefined };
  let offset = 0;

  const clearTimers = () => {
    for (const t of Object.values(timers)) if (t !== undefined) deps.clearTimeout(t);
    timers.ping = timers.pong = timers.tick = undefined;
  };
  const later = (ms: number) => {
    if (stopped) return;
    retry = deps.setTimeout(() => void connect(), ms);
  };
  const backOff = () => {
    const ms = wait;
    wait = Math.min(wait * 2, RETRY_MAX_MS);
    later(ms * (0.8 + Math.random() * 0.4));
  };
  const down = (then: "retry" | "now" | "never") => {
    clearTimers();
    socket = null;
    sink.open(false);
    if (then === "retry") backOff();
    else if (then === "now") later(0);
  };

  async function connect() {
    if (stopped) return;
    let ticket: string;
    try {
      ticket = (await deps.ticket()).ticket;
    } catch {
      if (!stopped) down("retry");
      return;
    }
    if (stopped) return;
    let ws: WebSocket;
    try {
      ws = new deps.WebSocket(`${deps.origin.replace(/^http/, "ws")}/api/driver/live?ticket=${encodeURIComponent(ticket)}`);
    } catch {
      down("retry");
      return;
    }
    socket = ws;
    let openedAt = 0;
    const ping = () => {
      if (ws.readyState !== 1) return;
      ws.send("ping");
      timers.pong = deps.setTimeout(() => ws.close(), PONG_WITHIN_MS);
      timers.ping = deps.setTimeout(ping, PING_EVERY_MS);
    };
    const tick = () => {
      sink.event({ kind: "tick", serverNow: Date.now() + offset });
      timers.tick = deps.setTimeout(tick, TICK_EVERY_MS);
    };
    ws.onopen = () => {
      if (stopped) return ws.close(1000);
      openedAt = Date.now();
      sink.open(true);
      sink.event({ kind: "open" });
      timers.ping = deps.setTimeout(ping, PING_EVERY_MS);
      timers.tick = deps.setTimeout(tick, TICK_EVERY_MS);
    };
    ws.onmessage = (e: MessageEvent) => {
      if (e.data === "pong") {
        if (timers.pong !== undefined) deps.clearTimeout(timers.pong);
        timers.pong = undefined;
        return;
      }
      let message: LiveMessage;
      try {
        message = JSON.parse(String(e.data)) as LiveMessage;
      } catch {
        return;
      }
      if (message.type === "engine") offset = message.engine.now - Date.now();
      sink.event({ kind: "message", message });
    };
    ws.onclose = (e: CloseEvent) => {
      if (stopped || socket !== ws) return;
      if (openedAt && Date.now() - openedAt >= STEADY_MS) wait = RETRY_FIRST_MS;
      down(ENDED.has(e.code) ? "never" : e.code === EXPIRED ? "now" : "retry");
    };
  }

  void connect();
  return () => {
    stopped = true;
    if (retry) deps.clearTimeout(retry);
    clearTimers();
    socket?.close(1000);
    socket = null;
    sink.open(false);
  };
}

/**
 * The driver's own dashboard: its socket, open while the page is and a driver is signed in
 * (signing out closes it). The reads in api.ts take its messages.
 */
export function useLiveDashboard(): void {
  const { user } = useSession();
  // Whose socket: a new one for another user, none signed out.
  const signedIn = user ? `user:${user.id}` : null;
  useEffect(() => {
    if (signedIn === null) return;
    return keepLive({ event: emit, open: setOpen });
  }, [signedIn]);
}
