import { DurableObject } from "cloudflare:workers";
import type { InsightPeriod } from "../../shared/insights";
import type { WhatIfRequest } from "../../shared/insights-requests";
import { CaptureEngine } from "./capture-engine";
import { HistoryReads } from "./history-reads";
import { OfferHistory, type OfferStatus } from "./offer-history";

/**
 * The driver's CaptureSession Durable Object (docs/engine.md), one per driver: the capture engine
 * (capture-engine.ts and the loop it runs on, engine-loop.ts) and the reads of the driver's offer
 * history (history-reads.ts), composed over one storage. One object, so a poll records its offers
 * and its accept marks in one storage transaction; two modules, so a reader of the history never
 * goes through the engine's code. Workers RPC calls only this class's own methods: each is a line
 * handing the call to its module, one round trip a call. Routes reach the engine through
 * engine-client.ts and the history through history-client.ts.
 *
 * `bindings` are the state and environment the modules work with, the runtime's own unless told
 * (the export in src/worker/index.ts meters them: capture-usage.ts).
 */
export class CaptureSessionObject extends DurableObject<Env> {
  readonly #engine: CaptureEngine;
  readonly #history: HistoryReads;

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
  }

  override alarm(): Promise<void> {
    return this.#engine.alarm();
  }

  // ---- The engine (engine-client.ts) ----

  start(userId: number) {
    return this.#engine.start(userId);
  }

  stop(userId: number) {
    return this.#engine.stop(userId);
  }

  resume(userId: number) {
    return this.#engine.resume(userId);
  }

  reload(userId: number) {
    return this.#engine.reload(userId);
  }

  disconnect(userId: number) {
    return this.#engine.disconnect(userId);
  }

  deregisterDevice(userId: number) {
    return this.#engine.deregisterDevice(userId);
  }

  status(userId: number) {
    return this.#engine.status(userId);
  }

  stations(userId: number) {
    return this.#engine.stations(userId);
  }

  forfeitBlock(userId: number, id: number) {
    return this.#engine.forfeitBlock(userId, id);
  }

  checkInBlock(userId: number, id: number) {
    return this.#engine.checkInBlock(userId, id);
  }

  captchaSolved(userId: number) {
    return this.#engine.captchaSolved(userId);
  }

  clearSignatureHold(userId: number) {
    return this.#engine.clearSignatureHold(userId);
  }

  erase(userId: number) {
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
