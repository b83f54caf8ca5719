/**
 * The capture engine's state and its calls to the platform (docs/engine.md): whose engine it is,
 * whether it runs and why it stopped, the profile it judges with, the platform tokens and adapter,
 * back-off, and what stops it. engine-loop.ts builds the alarm's poll on this, capture-engine.ts
 * the calls the routes make; capture-session.ts composes the engine with the history's reads.
 *
 * What must survive a restart lives in the object's storage: whether it runs and why it stopped,
 * the offers already decided and accepts whose outcome is unknown (offer-ledger.ts), the history
 * with the won blocks D1 does not have yet, the last poll time (so a restart cannot poll early)
 * and back-off. The platform tokens stay sealed in D1 and are opened only here (token-refresh.ts).
 */
import { createDb, type Db } from "../db/client";
import { createLogger, type Logger } from "../log";
import { notifyDriver } from "../notifications/notify";
import { BlockActions } from "./block-actions";
import { type DriverProfile, endConnection, loadDriverProfile, openTokens, saveTokens, setSystemStatus } from "./driver-store";
import { type SearchStop, searchStoppedNotification } from "./driver-texts";
import { failedResult, type PlatformResult, type StopReason } from "./engine-status";
import { HistoryUpkeep } from "./history-upkeep";
import { platformFor } from "./http-platform";
import type { OfferHistory } from "./offer-history";
import { OfferLedger } from "./offer-ledger";
import { type DeliveryPlatform, PlatformError, type ScheduledBlock } from "./platform";
import { LOCKED_OUT, PlatformHolds } from "./platform-holds";
import { type Backoff, backoffAfter, lockoutMsOf, pollIntervalMs } from "./poll-pacing";
import { planHolds, type SearchPlan, searchPlan } from "./search-plan";
import { PlatformTokenHolder, withAccessToken } from "./token-refresh";

/**
 * The profile (user row, filters, stations) is re-read this often while searching, and whenever
 * told: filters and connections call `reload`, every change of service time calls `resume`
 * (capture.ts), and notifications read the driver's channel, language and opt-out afresh. So a poll that
 * brings nothing new reads nothing from D1; this is the net for anything else (a station renamed).
 */
const PROFILE_TTL_MS = 15 * 60_000;
/** The history is pruned (RETENTION) at most this often, and a stopped object wakes this often to prune it. */
export const HOUSEKEEPING_EVERY_MS = 86_400_000;

export abstract class EngineState {
  protected userId: number | null;
  protected running: boolean;
  protected stopReason: StopReason;
  protected readonly ledger: OfferLedger;
  protected readonly upkeep: HistoryUpkeep;
  protected backoff: Backoff;
  protected lastPollAt: number | null;
  protected plannedAt: number | null = null;
  /** Reloads so far (new filters, a new zone): a poll that overlapped one judged with what it replaced. */
  protected reloads = 0;
  protected profile: DriverProfile | null = null;
  private profileAt = 0;
  protected readonly tokens: PlatformTokenHolder;
  /** The adapter, kept while the connection is (Flex's keeps the account's eligible areas). */
  private adapter: { app: "flex" | "spark"; platform: DeliveryPlatform } | null = null;
  protected schedule: { blocks: ScheduledBlock[]; at: number } | null = null;
  /**
   * The search plan last worked out, for the profile it was read from: a plan holds until its
   * `until` (searching) or until the lead before `opensAt` (paused), so it is worked out again only
   * then or when the profile is read again. Working it out reads the clocks of ten days in each
   * station's zone, which cost more than the rest of a poll.
   */
  private plan: { for: DriverProfile; plan: SearchPlan } | null = null;
  protected readonly db: Db;
  /** The pacing and what the platform's limits hold back (platform-holds.ts), in storage. */
  protected holds: PlatformHolds;
  protected readonly blockActions: BlockActions;
  protected log: Logger;

  constructor(
    protected readonly ctx: DurableObjectState,
    protected readonly env: Env,
    protected readonly history: OfferHistory,
  ) {
    const kv = ctx.storage.kv;
    this.userId = kv.get<number>("userId") ?? null;
    this.running = kv.get<boolean>("running") ?? false;
    this.stopReason = kv.get<StopReason>("stopReason") ?? "driver";
    this.backoff = kv.get<Backoff>("backoff") ?? { level: 0, until: 0 };
    this.lastPollAt = kv.get<number>("lastPollAt") ?? null;
    this.db = createDb(env.DB);
    this.ledger = new OfferLedger(kv, history);
    this.upkeep = new HistoryUpkeep(history, kv, this.db, HOUSEKEEPING_EVERY_MS, () => this.log);
    this.tokens = new PlatformTokenHolder(
      (sealed) => openTokens(sealed, env.MFA_ENCRYPTION_KEY),
      (tokens, now) => saveTokens(this.db, env.MFA_ENCRYPTION_KEY, this.userId!, tokens, now),
    );
    // Each hold that begins stops the search (or accepting): the driver is told, once.
    this.holds = new PlatformHolds(kv, pollIntervalMs(env), lockoutMsOf(env), (hold) => this.searchStopped(hold));
    this.log = createLogger({ task: "capture", userId: this.userId });
    this.blockActions = new BlockActions({
      history,
      holds: () => this.holds,
      call: (run) => this.forRoute((profile) => this.withToken(profile, run)),
      scheduleChanged: (blocks) => {
        this.schedule = blocks ? { blocks, at: Date.now() } : null;
        if (!blocks) this.profile = null;
      },
      shareWon: () => this.upkeep.shareWon(this.userId),
      wakeBy: async (at) => {
        const alarm = await this.ctx.storage.getAlarm();
        if (alarm === null || alarm > at) await this.ctx.storage.setAlarm(Math.max(at, Date.now()));
      },
      log: () => this.log,
    });
  }

  /** The account's poll interval now (adaptive: poll-pacing.ts). */
  protected get interval(): number {
    return this.holds.pacing.intervalMs;
  }

  /** Ties this object to its driver on the first call; a call for anyone else throws. */
  bind(userId: number) {
    if (this.userId === userId) return;
    if (this.userId !== null) throw new Error(`This capture session belongs to user ${this.userId}, not ${userId}`);
    this.userId = userId;
    this.ctx.storage.kv.put("userId", userId);
    this.log = createLogger({ task: "capture", userId });
  }

  protected async loadProfile(now: number, fresh: boolean): Promise<DriverProfile | null> {
    if (!fresh && this.profile && now - this.profileAt < PROFILE_TTL_MS) return this.profile;
    this.profile = await loadDriverProfile(this.db, this.userId!);
    this.profileAt = now;
    return this.profile;
  }

  /** Whether to search now (see `plan`). */
  protected planFor(profile: DriverProfile, now: number): SearchPlan {
    const cached = this.plan?.for === profile ? this.plan.plan : null;
    if (cached && planHolds(cached, now)) return cached;
    const zones = [...profile.stations.values()].map((s) => s.timeZone);
    const plan = searchPlan(profile.filters?.schedule ?? {}, zones, now);
    this.plan = { for: profile, plan };
    return plan;
  }

  /** The poll's time, in memory and in storage. */
  protected polled() {
    this.lastPollAt = Date.now();
    this.ctx.storage.kv.put("lastPollAt", this.lastPollAt);
  }

  /** A failed call: a refused token is refreshed at once; anything else backs off (poll-pacing.ts). */
  protected async failed(err: unknown, profile: DriverProfile) {
    const e = err instanceof PlatformError ? err : new PlatformError("unavailable", String(err));
    if (e.kind === "refused") {
      // The access token was refused before its time: refresh now, once; a refused refresh ends the connection.
      this.tokens.forget();
      await this.accessToken(profile, this.platformOf(profile.user.app), Date.now(), true);
      return;
    }
    const lockedUntil = this.holds.lockedUntil(Date.now());
    if (e.kind === "rate_limited" && lockedUntil !== null) {
      // The lockout is the wait (platform-holds.ts): nothing is called before it ends.
      if (e.message !== LOCKED_OUT) this.log.warn("capture.rate_limited", { until: lockedUntil, interval: this.interval });
      return;
    }
    // A captcha on the offers call: the driver is told (accepting held), and the engine backs off meanwhile.
    if (e.kind === "captcha") this.holds.acceptFailed(e, Date.now());
    const { waitMs, ...backoff } = backoffAfter(this.backoff, e, this.interval, Date.now());
    this.backoff = backoff;
    this.ctx.storage.kv.put("backoff", this.backoff);
    this.log.warn("capture.backoff", { kind: e.kind, waitMs, message: e.message });
  }

  /** A current access token (token-refresh.ts); null when there is none (the engine has stopped, or backs off). */
  protected async accessToken(profile: DriverProfile, platform: DeliveryPlatform, now: number, force = false): Promise<string | null> {
    const answer = await this.tokens.accessToken(profile.account?.sealedTokens, platform, now, force);
    if (answer.kind === "token") return answer.accessToken;
    if (answer.kind === "refused") await this.refused(profile, answer.why);
    else await this.failed(answer.error, profile);
    return null;
  }

  /** Runs a platform call for a route with a current token, refreshing once if the token is refused. */
  protected withToken<T>(profile: DriverProfile, call: (platform: DeliveryPlatform, token: string) => Promise<T>): Promise<T> {
    // A route's call may wait out a short modelled (Spark) rate limit; the engine's never does.
    const platform = this.holds.gated(platformFor(this.env, profile.user.app, { instanceId: () => this.tokens.instanceId() }));
    return withAccessToken(
      (force) => this.accessToken(profile, platform, Date.now(), force),
      (token) => call(platform, token),
      (why) => this.refused(profile, why),
    );
  }

  /** Platform errors cross the RPC boundary as plain values (an Error's class does not survive it). */
  protected async forRoute<T>(run: (profile: DriverProfile) => Promise<T>): Promise<PlatformResult<T>> {
    try {
      const profile = await this.loadProfile(Date.now(), true);
      if (!profile) throw new PlatformError("refused", "No such driver");
      return { ok: true, value: await run(profile) };
    } catch (err) {
      return failedResult(err);
    }
  }

  /** The driver's adapter; its capacity calls carry the instance id sealed with the tokens. */
  protected platformOf(app: "flex" | "spark"): DeliveryPlatform {
    if (this.adapter?.app !== app) {
      const platform = platformFor(this.env, app, { rateLimitRetries: 0, instanceId: () => this.tokens.instanceId() });
      this.adapter = { app, platform: this.holds.gated(platform) };
    }
    return this.adapter.platform;
  }

  /** The connection changed: the adapter and the tokens are read again. */
  protected forgetConnection() {
    this.tokens.forget();
    this.adapter = null;
  }

  /** The platform refused the refresh token: disconnected, system off, and the driver is told. */
  protected async refused(profile: DriverProfile | null, why: string) {
    this.tokens.forget();
    if (profile?.account?.sealedTokens) {
      await endConnection(this.db, profile.user.id, "refused", Date.now());
      this.log.warn("capture.disconnected", { why });
      this.searchStopped({ reason: "disconnected", since: Date.now() });
    }
    this.profile = null;
    await this.halt("disconnected");
  }

  /**
   * Notifies the driver (notifications/notify.ts: their channel, language and opt-out as D1 says
   * now), keeping the object alive until the notification is accepted; a failure is only logged.
   */
  protected notify(event: Parameters<typeof notifyDriver>[3], content: Parameters<typeof notifyDriver>[4]) {
    if (this.userId === null) return;
    const log = this.log;
    this.ctx.waitUntil(
      notifyDriver(this.env, log, this.userId, event, content).catch((err: unknown) =>
        log.error("capture.notify_failed", { event, error: err instanceof Error ? err.message : String(err) }),
      ),
    );
  }

  /** The search (or accepting) stopped: the driver is told, once per occurrence. */
  private searchStopped(stop: SearchStop) {
    if (this.userId === null) return;
    const app = this.profile?.user.app ?? this.adapter?.app ?? "flex";
    this.notify("searchStopped", searchStoppedNotification(this.userId, app, this.env.APP_ORIGIN, stop));
  }

  protected async halt(reason: StopReason) {
    this.setRunning(false, reason);
    this.plannedAt = null;
    await this.ctx.storage.deleteAlarm();
    if (this.userId !== null) {
      await setSystemStatus(this.db, this.userId, "stop");
      await this.upkeep.shareWon(this.userId);
    }
    await this.wakeForHousekeeping(Date.now());
  }

  protected setRunning(running: boolean, reason: StopReason) {
    this.running = running;
    this.stopReason = reason;
    this.ctx.storage.kv.put("running", running);
    this.ctx.storage.kv.put("stopReason", reason);
  }

  /** While stopped, the object wakes once a day to prune its history, as long as it keeps any. */
  protected async wakeForHousekeeping(now: number): Promise<void> {
    // A forfeit queued during a lockout goes out when it ends, system on or off.
    if (this.holds.queuedForfeits().length > 0) return this.ctx.storage.setAlarm(Math.max(now + 1000, this.holds.lockedUntil(now) ?? 0));
    if (this.upkeep.keepsAnything()) await this.ctx.storage.setAlarm(now + HOUSEKEEPING_EVERY_MS);
  }
}
