import { DurableObject } from "cloudflare:workers";
import type { InsightPeriod } from "../../shared/insights";
import type { WhatIfRequest } from "../../shared/insights-requests";
import { CaptureEngine } from "./capture-engine";
import { HistoryReads } from "./history-reads";
import { LIVE_PING, LIVE_PONG, LiveDashboard } from "./live-dashboard";
import { OfferHistory, type OfferStatus } from "./offer-history";

/**
 * The driver's CaptureSession Durable Object (docs/engine.md), one per driver: the capture engine
 * (capture-engine.ts and the loop it runs on, engine-loop.ts) and the reads of the driver's offer
 * history (history-reads.ts), composed over one storage. One object, so a poll records its offers
 * and its accept marks in one storage transaction; two modules, so a reader of the history never
 * goes through the engine's code. Workers RPC calls only this class's own methods: each is a line
 * handing the call to its module, one round trip a call. Routes reach the engine through
 * engine-client.ts and the history through history-client.ts. The driver's open dashboards are
 * WebSockets the object holds (live-dashboard.ts, live-client.ts): every call into the engine, and
 * every alarm, ends by telling them what changed.
 *
 * `bindings` are the state and environment the modules work with, the runtime's own unless told
 * (the export in src/worker/index.ts meters them: capture-usage.ts).
 */
export class CaptureSessionObject extends DurableObject<Env> {
  readonly #engine: CaptureEngine;
  readonly #history: HistoryReads;
  readonly #live: LiveDashboard;

  constructor(ctx: DurableObjectState, env: Env, bindings: { ctx: DurableObjectState; env: Env } = { ctx, env }) {
    super(ctx, env);
    const history = new OfferHistory(bindings.ctx.storage.sql, bindings.ctx.storage.kv);
    const engine = new CaptureEngine(bindings.ctx, bindings.env, history);
    this.#engine = engine;
    this.#history = new HistoryReads(history, {
      bind: (userId) => engine.bind(userId),
      filters: () => engine.filters(),
      forfeitQueuedAt: (id) => engine.forfeitQueuedAt(id),
    });
    const live = new LiveDashboard(bindings.ctx, bindings.env, history, {
      bind: (userId) => engine.bind(userId),
      view: () => engine.dashboardView(),
      forfeitQueuedAt: (id) => engine.forfeitQueuedAt(id),
    });
    this.#live = live;
    history.onChange = (id) => live.offerChanged(id);
    // A client's ping is answered by the runtime: a socket kept alive never wakes the object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(LIVE_PING, LIVE_PONG));
  }

  override async alarm(): Promise<void> {
    this.#live.closeExpired();
    await this.#engine.alarm();
    await this.#live.settle();
  }

  /** A call into the engine, then the open dashboards told what it changed. */
  async #changing<T>(call: Promise<T>): Promise<T> {
    try {
      return await call;
    } finally {
      await this.#live.settle();
    }
  }

  // ---- The live dashboard (live-client.ts) ----

  /** GET /api/driver/live's upgrade, handed over by the route with its ticket. */
  override fetch(request: Request): Promise<Response> {
    return this.#live.open(request);
  }

  liveTicket(userId: number, session: { sessionId: string; expiresAt: number }) {
    return this.#live.issueTicket(userId, session);
  }

  /** Signed out: the sockets of that session close, or with null all of the driver's (a sign-out everywhere; but `except`'s, on a change its caller made). */
  closeLive(_userId: number, sessionId: string | null, except?: string) {
    // Not bound here: a driver who never opened anything has nothing to close, and the object stays unwritten.
    return this.#live.close(sessionId, "session_ended", except);
  }

  override webSocketMessage(ws: WebSocket): void {
    this.#live.message(ws);
  }

  override webSocketClose(ws: WebSocket, code: number, reason: string): void {
    this.#live.closed(ws, code, reason);
  }

  override webSocketError(): void {
    // The socket is gone; its close event (if any) is answered, nothing is kept of it.
  }

  // ---- The engine (engine-client.ts) ----

  start(userId: number) {
    return this.#changing(this.#engine.start(userId));
  }

  stop(userId: number) {
    return this.#changing(this.#engine.stop(userId));
  }

  resume(userId: number) {
    return this.#changing(this.#engine.resume(userId));
  }

  reload(userId: number) {
    return this.#changing(this.#engine.reload(userId));
  }

  disconnect(userId: number) {
    return this.#changing(this.#engine.disconnect(userId));
  }

  deregisterDevice(userId: number) {
    return this.#engine.deregisterDevice(userId);
  }

  status(userId: number) {
    return this.#changing(this.#engine.status(userId));
  }

  stations(userId: number) {
    return this.#changing(this.#engine.stations(userId));
  }

  forfeitBlock(userId: number, id: number) {
    return this.#changing(this.#engine.forfeitBlock(userId, id));
  }

  checkInBlock(userId: number, id: number) {
    return this.#changing(this.#engine.checkInBlock(userId, id));
  }

  captchaSolved(userId: number) {
    return this.#changing(this.#engine.captchaSolved(userId));
  }

  clearSignatureHold(userId: number) {
    return this.#changing(this.#engine.clearSignatureHold(userId));
  }

  /** The account is erased: its dashboards close first, then the engine and everything the object stored go. */
  erase(userId: number) {
    this.#engine.bind(userId);
    this.#live.close(null, "erased");
    return this.#engine.erase(userId);
  }

  // ---- The history's reads (history-client.ts) ----

  offersPage(userId: number, query: { page: number; pageSize: number; status?: OfferStatus }) {
    return this.#history.offersPage(userId, query);
  }

  offer(userId: number, id: number) {
    return this.#history.offer(userId, id);
  }

  blocksStarting(userId: number, from: number, to: number, limit: number) {
    return this.#history.blocksStarting(userId, from, to, limit);
  }

  offersSeenSince(userId: number, from: number, limit: number) {
    return this.#history.offersSeenSince(userId, from, limit);
  }

  insights(userId: number, days: InsightPeriod) {
    return this.#history.insights(userId, days);
  }

  whatIf(userId: number, request: WhatIfRequest) {
    return this.#history.whatIf(userId, request);
  }
}
