/**
 * The capture engine's calls from the Worker (routes, payments; engine-client.ts): on and off,
 * resume after a payment, reload after a change, disconnect, the status, the stations, forfeits
 * and check-ins, the platform's holds, and erasure. The loop they steer is engine-loop.ts.
 */
import { isKnownTimeZone } from "../../shared/zoned-time";
import type { ForfeitAnswer } from "./block-actions";
import { type EngineView, engineViewOf } from "./dashboard-view";
import { endConnection, saveEligibleStations, setSystemStatus } from "./driver-store";
import { EngineLoop } from "./engine-loop";
import { blocker, type EngineStatus, type PlatformResult, runningStatus } from "./engine-status";
import type { PlatformStation } from "./platform";
import { PlatformHolds } from "./platform-holds";
import { earliestPoll, lockoutMsOf, pollIntervalMs } from "./poll-pacing";

export class CaptureEngine extends EngineLoop {
  /** Turns the system on if the driver may use it; answers the resulting status either way. */
  async start(userId: number): Promise<EngineStatus> {
    this.bind(userId);
    const now = Date.now();
    const profile = await this.loadProfile(now, true);
    const blocked = profile ? blocker(profile, now) : "setup";
    if (blocked) {
      await this.halt(blocked);
      return { state: "stopped", reason: blocked };
    }
    this.setRunning(true, "driver");
    await setSystemStatus(this.db, userId, "start");
    this.plannedAt = null;
    await this.ctx.storage.setAlarm(earliestPoll(this.lastPollAt, this.interval, now));
    return this.status(userId);
  }

  /** The driver turns the system off. */
  async stop(userId: number): Promise<EngineStatus> {
    this.bind(userId);
    await this.halt("driver");
    return { state: "stopped", reason: "driver" };
  }

  /** After a payment: a system stopped for expiry starts again if the driver may now use it. */
  async resume(userId: number): Promise<EngineStatus> {
    this.bind(userId);
    if (!this.running && this.stopReason === "expired") return this.start(userId);
    // Running: the new expiry is read at once, so the engine does not stop at the old one.
    this.profile = null;
    return this.status(userId);
  }

  /** Filters, zones, tokens or the user row changed: read them again before the next decision, and judge the disliked offers again. */
  async reload(userId: number): Promise<void> {
    this.bind(userId);
    this.reloads++;
    this.ledger.rejudgeDisliked();
    this.profile = null;
    this.forgetConnection();
    this.schedule = null;
    if (this.running) await this.ctx.storage.setAlarm(earliestPoll(this.lastPollAt, this.interval, Date.now()));
  }

  /** The driver disconnects the platform account: the device is deregistered (best effort), the system stops and the tokens are dropped. */
  async disconnect(userId: number): Promise<void> {
    await this.deregisterDevice(userId);
    await endConnection(this.db, userId, "driver", Date.now());
    this.forgetConnection();
    this.profile = null;
    await this.halt("disconnected");
  }

  /** Deregisters the connected device, best effort (disconnecting, or a new connection replacing it); the tokens stay until replaced or dropped. */
  async deregisterDevice(userId: number): Promise<void> {
    this.bind(userId);
    const profile = await this.loadProfile(Date.now(), true);
    if (!profile?.account?.sealedTokens) return;
    try {
      const tokens = await this.tokens.current(profile.account.sealedTokens);
      if (tokens) await this.platformOf(profile.user.app).deregister(tokens.accessToken);
    } catch (err) {
      this.log.warn("capture.deregister_failed", { error: err instanceof Error ? err.message : String(err) });
    }
  }

  async status(userId: number): Promise<EngineStatus> {
    this.bind(userId);
    if (!this.running) return { state: "stopped", reason: this.stopReason };
    const now = Date.now();
    let profile = await this.loadProfile(now, false);
    if (!profile || blocker(profile, now)) profile = await this.loadProfile(now, true);
    const blocked = profile ? blocker(profile, now) : "setup";
    if (blocked || !profile?.filters) {
      // Expired (or disconnected) since the last alarm: stop now rather than report a state that is not so.
      await this.halt(blocked ?? "setup");
      return { state: "stopped", reason: blocked ?? "setup" };
    }
    const holds = { limit: this.holds.limit(now), acceptHold: this.holds.acceptHold(), forfeitsWaiting: this.holds.queuedForfeits().length };
    return runningStatus(profile, this.planFor(profile, now), holds, this.backoff.until, this.lastPollAt, now);
  }

  /**
   * The dashboard's view of the engine (GET /api/driver/engine's shape) for the live dashboard:
   * the service from the profile the engine keeps, read from D1 only when it keeps none.
   */
  async dashboardView(): Promise<EngineView> {
    const userId = this.userId!;
    const engine = await this.status(userId);
    const now = Date.now();
    const user = (this.profile ?? (await this.loadProfile(now, false)))?.user;
    return engineViewOf(engine, user ?? { expirationAt: null, goodStanding: false }, now);
  }

  /**
   * The driver's eligible stations, straight from the platform: saved to the catalogue, and as the
   * account's list the stations route answers from until it is old (routes/driver.ts).
   */
  async stations(userId: number): Promise<PlatformResult<PlatformStation[]>> {
    this.bind(userId);
    return this.forRoute(async (profile) => {
      // No station is dropped: one without a zone is listed, and the driver gives it one (station-catalogue.ts).
      const list = (await this.withToken(profile, (platform, token) => platform.stations(token))).map((s) =>
        s.timeZone && !isKnownTimeZone(s.timeZone) ? { ...s, timeZone: null } : s,
      );
      await saveEligibleStations(this.db, profile.user.id, profile.user.app, list, Date.now());
      return list;
    });
  }

  /** Gives a won block back to the platform, then marks it in the history (and D1's copy); during a lockout it waits (block-actions.ts). */
  async forfeitBlock(userId: number, id: number): Promise<PlatformResult<ForfeitAnswer>> {
    this.bind(userId);
    return this.blockActions.forfeit(id);
  }

  /** "I've arrived" for a won block, then marked in the history (and D1's copy). */
  async checkInBlock(userId: number, id: number): Promise<PlatformResult<{ id: number; arrivedAt: number }>> {
    this.bind(userId);
    return this.blockActions.checkIn(id);
  }

  /** The driver solved the platform's captcha: the next take gets one try. Null when accepting is not held for a captcha. */
  async captchaSolved(userId: number): Promise<EngineStatus | null> {
    this.bind(userId);
    if (!this.holds.captchaSolved()) return null;
    await this.pollSoon();
    return this.status(userId);
  }

  /** An admin clears a signature hold (the search's or accepting's): the engine tries again, once. Null when there is none. */
  async clearSignatureHold(userId: number): Promise<EngineStatus | null> {
    this.bind(userId);
    if (!this.holds.clearSignatureHold()) return null;
    await this.pollSoon();
    return this.status(userId);
  }

  private async pollSoon(): Promise<void> {
    if (this.running) await this.ctx.storage.setAlarm(earliestPoll(this.lastPollAt, this.interval, Date.now()));
  }

  /** The account is erased: the engine stops, the tokens go (disconnect), and so does everything this object stored. */
  async erase(userId: number): Promise<void> {
    await this.disconnect(userId);
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.holds = new PlatformHolds(this.ctx.storage.kv, pollIntervalMs(this.env), lockoutMsOf(this.env));
    this.userId = null;
    this.profile = null;
  }

  /** What the history's reads take from the engine: the filters in force, and when a forfeit waiting for a lockout's end was asked. */
  async filters() {
    return (await this.loadProfile(Date.now(), false))?.filters ?? null;
  }

  forfeitQueuedAt(id: number): number | null {
    return this.holds.forfeitQueuedAt(id);
  }
}
