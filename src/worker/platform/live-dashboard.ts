/**
 * The driver's live dashboard (docs/engine.md, "The live dashboard"): the WebSockets of the
 * driver's open dashboards, held by their CaptureSession object with the hibernation API, so an
 * idle socket costs nothing. A socket opens with a ticket (`issueTicket`: single use, at most a
 * minute, for one session) and gets, within a second of each change, the dashboard's own shapes
 * (dashboard-view.ts): `{ type: "offer", offer, counts }` for each offer recorded, judged again or
 * updated, and `{ type: "engine", engine }` when the engine's view changes (and once at the opening).
 *
 * A socket lasts as long as the session it was opened for: the ticket carries the session and its
 * expiry (the caller's ID token's), the socket keeps them in its attachment, and the object closes
 * it at the expiry (checked at each send, and by the alarm), on sign-out (`close`) and on erasure.
 * The close codes are LIVE_CLOSE's.
 */
import { toBase64Url } from "../auth/password";
import { randomToken } from "../auth/random";
import { createLogger } from "../log";
import { type EngineView, offerRowOf } from "./dashboard-view";
import type { OfferHistory } from "./offer-history";

/** Why the object closes a socket (the reason is the key): the SPA opens a new one after `expired`, never after the others. */
export const LIVE_CLOSE = { session_ended: 4001, expired: 4002, erased: 4003 } as const;
export type LiveCloseReason = keyof typeof LIVE_CLOSE;

/** A ticket opens a socket this long after it was issued, at most (and never past its session). */
export const LIVE_TICKET_TTL_MS = 60_000;
/** Tickets a driver may hold at once; issuing past it drops the oldest. */
const MAX_TICKETS = 10;
const TICKET = "liveTicket:";
/** What a client sends to learn the socket is alive; answered by the runtime without waking the object. */
export const LIVE_PING = "ping";
export const LIVE_PONG = "pong";

/** A ticket as the object keeps it: under the SHA-256 of its secret, so its storage holds nothing that opens a socket. */
type TicketRecord = { sessionId: string; sessionExpiresAt: number; expiresAt: number; usedAt: number | null };
/** What a socket keeps across hibernation. */
type Attachment = { sessionId: string; expiresAt: number };

export type TicketRefusal = "ticket_unknown" | "ticket_used" | "ticket_expired";
export type LiveMessage =
  | { type: "offer"; offer: ReturnType<typeof offerRowOf>; counts: ReturnType<OfferHistory["counts"]> }
  | { type: "engine"; engine: EngineView };

/** What the live dashboard takes from the engine (capture-engine.ts). */
export type LiveEngine = {
  bind(userId: number): void;
  /** The engine's view as GET /api/driver/engine answers it, from what the engine holds. */
  view(): Promise<EngineView>;
  forfeitQueuedAt(id: number): number | null;
};

/** A ticket is `<user id>.<secret>`: the id says whose object checks it, the secret is 32 random bytes. */
export const TICKET_PATTERN = /^([1-9]\d{0,15})\.([A-Za-z0-9_-]{43})$/;

const sessionTag = (sessionId: string) => `session:${sessionId}`;

async function digest(secret: string): Promise<string> {
  return toBase64Url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret)));
}

/** The engine's view without what changes on every poll (the poll's time, the server's clock): a change of anything else is sent. */
function engineKey(view: EngineView): string {
  const { lastPollAt: _poll, ...engine } = view.engine as EngineView["engine"] & { lastPollAt?: number | null };
  return JSON.stringify([engine, view.service]);
}

export class LiveDashboard {
  private readonly pending = new Set<number>();
  private flushScheduled = false;
  /** The engine's view last sent (engineKey); null when none was, or the object has started since. */
  private sentEngine: string | null = null;
  private readonly checkInAvailable: boolean;

  constructor(
    private readonly ctx: DurableObjectState,
    env: Pick<Env, "PLATFORM_CHECK_IN">,
    private readonly history: OfferHistory,
    private readonly engine: LiveEngine,
  ) {
    this.checkInAvailable = env.PLATFORM_CHECK_IN === "modelled";
  }

  /** A ticket for one socket of `session` (the ID token's session id and expiry), usable once within LIVE_TICKET_TTL_MS. */
  async issueTicket(userId: number, session: { sessionId: string; expiresAt: number }, now = Date.now()): Promise<{ ticket: string; expiresAt: number }> {
    this.engine.bind(userId);
    const secret = randomToken();
    const expiresAt = Math.min(now + LIVE_TICKET_TTL_MS, session.expiresAt);
    this.pruneTickets(now);
    const record: TicketRecord = { sessionId: session.sessionId, sessionExpiresAt: session.expiresAt, expiresAt, usedAt: null };
    this.ctx.storage.kv.put(`${TICKET}${await digest(secret)}`, record);
    return { ticket: `${userId}.${secret}`, expiresAt };
  }

  /**
   * The upgrade request of GET /api/driver/live (routes/driver.ts hands it over): the ticket is
   * checked and spent, the socket accepted for hibernation with its session, and the engine's view
   * sent. A refusal is a 401 whose body names the reason (the route words the error envelope).
   */
  async open(request: Request, now = Date.now()): Promise<Response> {
    const match = TICKET_PATTERN.exec(new URL(request.url).searchParams.get("ticket") ?? "");
    const key = match ? `${TICKET}${await digest(match[2]!)}` : null;
    const record = key ? this.ctx.storage.kv.get<TicketRecord>(key) : undefined;
    const refusal: TicketRefusal | null = !record
      ? "ticket_unknown"
      : record.usedAt !== null
        ? "ticket_used"
        : record.expiresAt <= now || record.sessionExpiresAt <= now
          ? "ticket_expired"
          : null;
    if (refusal || !record || !key) return Response.json({ reason: refusal ?? "ticket_unknown" }, { status: 401 });
    this.ctx.storage.kv.put(key, { ...record, usedAt: now });

    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server, [sessionTag(record.sessionId)]);
    server.serializeAttachment({ sessionId: record.sessionId, expiresAt: record.sessionExpiresAt } satisfies Attachment);
    const view = await this.engine.view();
    this.sentEngine = engineKey(view);
    server.send(JSON.stringify({ type: "engine", engine: view } satisfies LiveMessage));
    await this.wakeAtExpiry();
    return new Response(null, { status: 101, webSocket: client });
  }

  /** An offer of the history was recorded, judged again or updated (OfferHistory.onChange): its row goes out right after the current work. */
  offerChanged(id: number): void {
    if (this.sockets().length === 0) return;
    this.pending.add(id);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // After the current turn: a poll's disliked offers are recorded before its accepts go out, and
    // their rows must not stand between an offer and its accept.
    setTimeout(() => this.flush(), 0);
  }

  /**
   * After each call into the engine and each alarm: the rows waiting, the engine's view if it
   * changed, the wake for the next expiry. Never throws: the call or the alarm it follows has done
   * its work (a view that could not be read now goes with the next one).
   */
  async settle(): Promise<void> {
    try {
      this.flush();
      if (this.sockets().length === 0) return;
      const view = await this.engine.view();
      const key = engineKey(view);
      if (key !== this.sentEngine) {
        this.sentEngine = key;
        this.broadcast({ type: "engine", engine: view });
      }
      await this.wakeAtExpiry();
    } catch (err) {
      createLogger({ task: "live" }).warn("live.settle_failed", { error: err instanceof Error ? err.message : String(err) });
    }
  }

  /**
   * Closes the sockets of one session (a sign-out), or of all (a sign-out everywhere, an erasure)
   * but `except`'s (a password changed by that session), and drops their sessions' tickets.
   */
  close(sessionId: string | null, reason: LiveCloseReason, except?: string): number {
    const ends = (session: string) => (sessionId === null ? session !== except : session === sessionId);
    const sockets = (sessionId === null ? this.sockets() : this.sockets(sessionTag(sessionId))).filter((ws) => ends(sessionOf(ws)));
    for (const ws of sockets) closeSocket(ws, reason);
    for (const [key, record] of this.ctx.storage.kv.list<TicketRecord>({ prefix: TICKET })) {
      if (ends(record.sessionId)) this.ctx.storage.kv.delete(key);
    }
    return sockets.length;
  }

  /** Closes the sockets whose session has expired (the alarm calls it first). */
  closeExpired(now = Date.now()): void {
    for (const ws of this.sockets()) if (expiryOf(ws) <= now) closeSocket(ws, "expired");
  }

  /** A message from a client (anything but the ping, which the runtime answers): the socket's expiry is checked, nothing else is read. */
  message(ws: WebSocket): void {
    if (expiryOf(ws) <= Date.now()) closeSocket(ws, "expired");
  }

  /** The client closed: the close is answered (the runtime may have already). */
  closed(ws: WebSocket, code: number, reason: string): void {
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, reason);
    } catch {
      // Already closed.
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.pending.size === 0) return;
    const ids = [...this.pending];
    this.pending.clear();
    const now = Date.now();
    const counts = this.history.counts();
    for (const id of ids) {
      const row = this.history.byId(id);
      if (!row) continue;
      const offer = offerRowOf({ ...row, forfeitQueuedAt: this.engine.forfeitQueuedAt(id) }, now, this.checkInAvailable);
      this.broadcast({ type: "offer", offer, counts }, now);
    }
  }

  /** Sends to every open socket whose session has not expired; the expired ones are closed instead. */
  private broadcast(message: LiveMessage, now = Date.now()): void {
    const data = JSON.stringify(message);
    for (const ws of this.sockets()) {
      if (expiryOf(ws) <= now) closeSocket(ws, "expired");
      else {
        try {
          ws.send(data);
        } catch {
          // Closing meanwhile: its close event ends it.
        }
      }
    }
  }

  /** The object's alarm comes at the earliest socket expiry at the latest (the engine's own alarm is usually sooner). */
  private async wakeAtExpiry(): Promise<void> {
    const sockets = this.sockets();
    if (sockets.length === 0) return;
    const next = Math.min(...sockets.map(expiryOf));
    const alarm = await this.ctx.storage.getAlarm();
    if (alarm === null || alarm > next) await this.ctx.storage.setAlarm(next);
  }

  private sockets(tag?: string): WebSocket[] {
    return this.ctx.getWebSockets(tag).filter((ws) => ws.readyState === WebSocket.OPEN);
  }

  /** Tickets past their time are dropped, and the oldest beyond MAX_TICKETS. A used one is kept until its time, to say "used". */
  private pruneTickets(now: number): void {
    const kept: [string, TicketRecord][] = [];
    for (const [key, record] of this.ctx.storage.kv.list<TicketRecord>({ prefix: TICKET })) {
      if (record.expiresAt <= now) this.ctx.storage.kv.delete(key);
      else kept.push([key, record]);
    }
    kept.sort((a, b) => a[1].expiresAt - b[1].expiresAt);
    for (const [key] of kept.slice(0, Math.max(0, kept.length - (MAX_TICKETS - 1)))) this.ctx.storage.kv.delete(key);
  }
}

function expiryOf(ws: WebSocket): number {
  return (ws.deserializeAttachment() as Attachment | null)?.expiresAt ?? 0;
}

function sessionOf(ws: WebSocket): string {
  return (ws.deserializeAttachment() as Attachment | null)?.sessionId ?? "";
}

function closeSocket(ws: WebSocket, reason: LiveCloseReason): void {
  try {
    ws.close(LIVE_CLOSE[reason], reason);
  } catch {
    // Already closing.
  }
}
