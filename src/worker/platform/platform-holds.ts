/**
 * What the platform's limits hold back, per driver (docs/engine.md, "Limits of the platform"): the
 * adaptive pacing with its "Rate exceeded" lockouts (poll-pacing.ts), accepting paused by a captcha
 * (307) or a missing request signature (420), the whole search stopped by a 420 on the offers call,
 * and forfeits asked during a lockout, waiting for its end. Kept in the CaptureSession's storage,
 * so a restart keeps every hold; the object asks this module before each capacity call and tells
 * it each answer.
 *
 * Every capacity call (offers, accept, schedule, stations, forfeit, check-in) goes through
 * `gated`: during a lockout none goes out, and each answer moves the pacing.
 */
import { type DeliveryPlatform, PlatformError } from "./platform";
import { initialPacing, mayCallPlatform, type PacingState, pacingAfterAnswer, pacingAfterLimit } from "./poll-pacing";

/** Accepting paused: a captcha to solve on the platform's side, or a request signature we do not make. */
export type AcceptHold = { reason: "captcha" | "signature"; since: number } | null;

/**
 * `oneTry`: the driver said the captcha is solved, or an admin cleared the hold (or a signer was
 * configured): the next take is asked for, once. `signerConfigured`: whether one was when a 420 came.
 */
type StoredAcceptHold = { reason: "captcha" | "signature"; since: number; oneTry: boolean; signerConfigured?: boolean };
/** A 420 on the offers call: no search until a signer is configured or an admin clears it. */
type SearchHold = { since: number; signerConfigured: boolean };
/** A forfeit asked during a lockout: the history's id of the won block, and when it was asked. */
export type QueuedForfeit = { id: number; askedAt: number };

export type LimitState =
  | { kind: "rate_limited"; since: number; until: number }
  | { kind: "signature_required"; since: number; signerConfigured: boolean }
  | { kind: "none" };

const KEYS = { pacing: "pacing", limitedSince: "limitedSince", acceptHold: "acceptHold", searchHold: "searchHold", forfeits: "forfeitQueue" } as const;

/** A hold that has just begun, for the driver to be told (engine-state.ts notifies them). */
export type NewHold = { reason: "rate_limited"; since: number; until: number } | { reason: "captcha" | "signature"; since: number };

/** The engine's own "Rate exceeded", thrown instead of making a call during a lockout. */
export const LOCKED_OUT = "locked_out";

export class PlatformHolds {
  private pacingState: PacingState;
  private limitedSince: number | null;
  private accepting: StoredAcceptHold | null;
  private search: SearchHold | null;
  private forfeits: QueuedForfeit[];

  constructor(
    private readonly kv: SyncKvStorage,
    intervalMs: number,
    private readonly lockoutMs: number,
    /** Called once when a lockout, a captcha hold or a signature hold begins (not when one goes on). */
    private readonly began: (hold: NewHold) => void = () => {},
  ) {
    this.pacingState = kv.get<PacingState>(KEYS.pacing) ?? initialPacing(intervalMs);
    this.limitedSince = kv.get<number>(KEYS.limitedSince) ?? null;
    this.accepting = kv.get<StoredAcceptHold>(KEYS.acceptHold) ?? null;
    this.search = kv.get<SearchHold>(KEYS.searchHold) ?? null;
    this.forfeits = kv.get<QueuedForfeit[]>(KEYS.forfeits) ?? [];
  }

  get pacing(): PacingState {
    return this.pacingState;
  }

  /** Whether a capacity call may go out at `now` (not during a lockout). */
  mayCall(now: number): boolean {
    return mayCallPlatform(this.pacingState, now);
  }

  /** When the lockout ends, or null when there is none at `now`. */
  lockedUntil(now: number): number | null {
    return this.mayCall(now) ? null : this.pacingState.lockedUntil;
  }

  /** What limits the engine at `now`, for its status. */
  limit(now: number): LimitState {
    if (!this.mayCall(now)) return { kind: "rate_limited", since: this.limitedSince ?? now, until: this.pacingState.lockedUntil };
    if (this.search) return { kind: "signature_required", ...this.search };
    return { kind: "none" };
  }

  /**
   * The platform with every capacity call gated: during a lockout the call is not made (a
   * PlatformError "rate_limited" saying until when), and each answer moves the pacing: a "Rate
   * exceeded" without a wait (Flex's) starts or prolongs the lockout, any other answer counts as answered.
   */
  gated(platform: DeliveryPlatform): DeliveryPlatform {
    const call = async <T>(run: () => Promise<T>): Promise<T> => {
      const now = Date.now();
      if (!this.mayCall(now)) throw new PlatformError("rate_limited", LOCKED_OUT, this.pacingState.lockedUntil - now);
      try {
        const value = await run();
        this.answered(Date.now());
        return value;
      } catch (err) {
        if (err instanceof PlatformError && err.kind === "rate_limited" && err.retryAfterMs === undefined) this.limited(Date.now());
        else if (err instanceof PlatformError && err.status !== undefined) this.answered(Date.now());
        throw err;
      }
    };
    return {
      refresh: (refreshToken) => platform.refresh(refreshToken),
      deregister: (token) => platform.deregister(token),
      stations: (token) => call(() => platform.stations(token)),
      offers: (token, ids) => call(() => platform.offers(token, ids)),
      accept: (token, offer) => call(() => platform.accept(token, offer)),
      forfeit: (token, id) => call(() => platform.forfeit(token, id)),
      scheduledBlocks: (token) => call(() => platform.scheduledBlocks(token)),
      checkIn: (token, id) => call(() => platform.checkIn(token, id)),
    };
  }

  private answered(now: number): void {
    const next = pacingAfterAnswer(this.pacingState, now);
    if (next !== this.pacingState) this.savePacing(next);
    if (this.limitedSince !== null && next.lockedUntil === 0) {
      this.limitedSince = null;
      this.kv.delete(KEYS.limitedSince);
    }
  }

  private limited(now: number): void {
    const begins = this.limitedSince === null;
    if (begins) {
      this.limitedSince = now;
      this.kv.put(KEYS.limitedSince, now);
    }
    this.savePacing(pacingAfterLimit(this.pacingState, now, this.lockoutMs));
    if (begins) this.began({ reason: "rate_limited", since: now, until: this.pacingState.lockedUntil });
  }

  private savePacing(state: PacingState): void {
    this.pacingState = state;
    this.kv.put(KEYS.pacing, state);
  }

  // ---- Accepting paused (307 captcha, 420 signature on an accept) ----

  /** Accepting paused, as the status shows it. */
  acceptHold(): AcceptHold {
    return this.accepting ? { reason: this.accepting.reason, since: this.accepting.since } : null;
  }

  /** How many takes of a poll may be asked for: all, one (the try after a captcha solved or a hold cleared), or none. */
  acceptsAllowed(): number {
    if (!this.accepting) return Number.POSITIVE_INFINITY;
    return this.accepting.oneTry ? 1 : 0;
  }

  /**
   * An accept's failure: a captcha or a missing signature pauses accepting (again, after a try).
   * True when it did, so the engine does not back off for it.
   */
  acceptFailed(err: PlatformError, now: number, signerConfigured = false): boolean {
    const reason = err.kind === "captcha" ? "captcha" : err.kind === "signature_required" ? "signature" : null;
    if (!reason) return false;
    const goesOn = this.accepting?.reason === reason && !this.accepting.oneTry;
    const since = goesOn && this.accepting ? this.accepting.since : now;
    this.setAcceptHold({ reason, since, oneTry: false, ...(reason === "signature" ? { signerConfigured } : {}) });
    // The search stopped for a signature already told the driver of this one.
    if (!goesOn && !(reason === "signature" && this.search)) this.began({ reason, since });
    return true;
  }

  /** The try after a solved captcha or a cleared hold got its answer: accepting goes on. */
  acceptAnswered(): void {
    if (this.accepting?.oneTry) this.setAcceptHold(null);
  }

  /** The driver solved the captcha on the platform's side: one try. False when accepting is not held for a captcha. */
  captchaSolved(): boolean {
    if (this.accepting?.reason !== "captcha") return false;
    this.setAcceptHold({ ...this.accepting, oneTry: true });
    return true;
  }

  private setAcceptHold(hold: StoredAcceptHold | null): void {
    this.accepting = hold;
    if (hold) this.kv.put(KEYS.acceptHold, hold);
    else this.kv.delete(KEYS.acceptHold);
  }

  // ---- The search stopped (420 on the offers call) ----

  /**
   * Whether the search is stopped for a signature. A hold that came while no signer was configured
   * ends once one is: the search resumes, and accepting gets its one try.
   */
  searchHeld(signerConfigured: boolean): boolean {
    if (this.search && !this.search.signerConfigured && signerConfigured) this.setSearchHold(null);
    const accepting = this.accepting;
    if (accepting?.reason === "signature" && !accepting.oneTry && !accepting.signerConfigured && signerConfigured)
      this.setAcceptHold({ ...accepting, oneTry: true, signerConfigured });
    return this.search !== null;
  }

  holdSearch(now: number, signerConfigured: boolean): void {
    const begins = this.search === null;
    this.setSearchHold({ since: this.search?.since ?? now, signerConfigured });
    // Accepting already held for a signature told the driver of this one.
    if (begins && !(this.accepting?.reason === "signature" && !this.accepting.oneTry)) this.began({ reason: "signature", since: now });
  }

  /** An admin clears a signature hold (the search's, or accepting's): the engine tries again, once. False when there is none. */
  clearSignatureHold(): boolean {
    let cleared = false;
    if (this.search) {
      this.setSearchHold(null);
      cleared = true;
    }
    if (this.accepting?.reason === "signature") {
      this.setAcceptHold({ ...this.accepting, oneTry: true });
      cleared = true;
    }
    return cleared;
  }

  private setSearchHold(hold: SearchHold | null): void {
    this.search = hold;
    if (hold) this.kv.put(KEYS.searchHold, hold);
    else this.kv.delete(KEYS.searchHold);
  }

  // ---- Forfeits asked during a lockout ----

  /** Queues a forfeit (once per block); answers when it was asked. */
  queueForfeit(id: number, now: number): number {
    const queued = this.forfeits.find((f) => f.id === id);
    if (queued) return queued.askedAt;
    this.forfeits = [...this.forfeits, { id, askedAt: now }];
    this.kv.put(KEYS.forfeits, this.forfeits);
    return now;
  }

  /** When the block's forfeit was queued, or null. */
  forfeitQueuedAt(id: number): number | null {
    return this.forfeits.find((f) => f.id === id)?.askedAt ?? null;
  }

  queuedForfeits(): readonly QueuedForfeit[] {
    return this.forfeits;
  }

  dropForfeit(id: number): void {
    this.forfeits = this.forfeits.filter((f) => f.id !== id);
    if (this.forfeits.length > 0) this.kv.put(KEYS.forfeits, this.forfeits);
    else this.kv.delete(KEYS.forfeits);
  }
}
