import { DurableObject } from "cloudflare:workers";
import { toCaptureFilters } from "../../shared/driver-filters";
import { isKnownTimeZone } from "../../shared/zoned-time";
import { createDb, type Db } from "../db/client";
import { createLogger, type Logger } from "../log";
import { type Commitment, heldBlocks, judgeOffers, offersToJudge } from "./accept-plan";
import { acceptInRounds, settleUnlisted } from "./accept-rounds";
import { CaptureUsage } from "./capture-usage";
import { type DriverProfile, endConnection, loadDriverProfile, openTokens, saveEligibleStations, saveTokens, setSystemStatus } from "./driver-store";
import { textDisconnected, textWonBlock } from "./driver-texts";
import { blocker, type EngineStatus, failedResult, type PlatformResult, runningStatus, type StopReason } from "./engine-status";
import { platformFor } from "./http-platform";
import { OfferLedger } from "./offer-ledger";
import { type DeliveryPlatform, PlatformError, type PlatformOffer, type PlatformStation, type ScheduledBlock } from "./platform";
import { type Backoff, backoffAfter, earliestPoll, nextPoll, pollIntervalMs, wakeWhilePaused } from "./poll-pacing";
import { planHolds, type SearchPlan, searchPlan } from "./search-plan";
import { PlatformTokenHolder, withAccessToken } from "./token-refresh";

/**
 * The capture engine of one driver (docs/engine.md): a Durable Object whose alarm loop, while the
 * system is on, service is paid and a schedule window is open (or about to open), polls the
 * platform at the configured interval with jitter (poll-pacing.ts), accepts the offers the accept
 * plan picks (accept-plan.ts: pay per hour first, never overlapping, within the daily cap) and
 * records every offer once in D1: won, disliked (with reasons) or gone. This object does the I/O:
 * the platform's calls, D1, its storage, the alarm and the texts.
 *
 * What must survive a restart lives in the object's storage: whether it runs and why it stopped,
 * the offers already decided, accepts whose outcome is unknown and records D1 has not taken yet
 * (offer-ledger.ts), the last poll time (so a restart cannot poll early) and back-off.
 * The platform tokens stay sealed in D1 and are opened only here (token-refresh.ts).
 */

/** Profile (user row, filters, stations, won blocks) is re-read this often while searching, and whenever told. */
const PROFILE_TTL_MS = 60_000;
/** The platform's own schedule (blocks won elsewhere count for overlaps and the cap) is re-read this often. */
const SCHEDULE_TTL_MS = 15 * 60_000;

export class CaptureSession extends DurableObject<Env> {
  private userId: number | null;
  private running: boolean;
  private stopReason: StopReason;
  private readonly ledger: OfferLedger;
  private backoff: Backoff;
  private lastPollAt: number | null;
  private plannedAt: number | null = null;
  private profile: DriverProfile | null = null;
  private profileAt = 0;
  private readonly tokens: PlatformTokenHolder;
  private schedule: { blocks: ScheduledBlock[]; at: number } | null = null;
  /** Blocks this object won since its profile was last read (kept until they end). */
  private recentWins: Commitment[] = [];
  /**
   * The search plan last worked out, for the profile it was read from: a plan holds until its
   * `until` (searching) or until the lead before `opensAt` (paused), so it is worked out again only
   * then or when the profile is read again. Working it out reads the clocks of ten days in each
   * station's zone, which cost more than the rest of a poll.
   */
  private plan: { for: DriverProfile; plan: SearchPlan } | null = null;
  private readonly db: Db;
  private readonly interval: number;
  private log: Logger;
  private readonly usage: CaptureUsage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // From here on this object's storage and D1 are counted, for the capture.usage log line (capture-usage.ts).
    this.usage = CaptureUsage.attach(this, ctx, env);
    ({ ctx, env } = this.usage);
    const kv = ctx.storage.kv;
    this.userId = kv.get<number>("userId") ?? null;
    this.running = kv.get<boolean>("running") ?? false;
    this.stopReason = kv.get<StopReason>("stopReason") ?? "driver";
    this.backoff = kv.get<Backoff>("backoff") ?? { level: 0, until: 0 };
    this.lastPollAt = kv.get<number>("lastPollAt") ?? null;
    this.db = createDb(env.DB);
    this.ledger = new OfferLedger(kv, this.db, () => this.log);
    this.tokens = new PlatformTokenHolder(
      (sealed) => openTokens(sealed, env.MFA_ENCRYPTION_KEY),
      (tokens, now) => saveTokens(this.db, env.MFA_ENCRYPTION_KEY, this.userId!, tokens, now),
    );
    this.interval = pollIntervalMs(env);
    this.log = createLogger({ task: "capture", userId: this.userId });
  }

  // ---- Calls from the Worker (routes, payments) ----

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

  /** Filters, tokens or the user row changed: read them again before the next decision. */
  async reload(userId: number): Promise<void> {
    this.bind(userId);
    this.profile = null;
    this.tokens.forget();
    this.schedule = null;
    if (this.running) await this.ctx.storage.setAlarm(earliestPoll(this.lastPollAt, this.interval, Date.now()));
  }

  /** The driver disconnects the platform account: the system stops and the tokens are dropped. */
  async disconnect(userId: number): Promise<void> {
    this.bind(userId);
    await endConnection(this.db, userId, "driver", Date.now());
    this.tokens.forget();
    this.profile = null;
    await this.halt("disconnected");
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
    return runningStatus(profile, this.planFor(profile, now), this.backoff.until, this.lastPollAt, now);
  }

  /**
   * The driver's eligible stations, straight from the platform: saved to the catalogue, and as the
   * account's list the stations route answers from until it is old (routes/driver.ts).
   */
  async stations(userId: number): Promise<PlatformResult<PlatformStation[]>> {
    this.bind(userId);
    return this.forRoute(async (profile) => {
      const list = (await this.withToken(profile, (platform, token) => platform.stations(token))).filter((s) => isKnownTimeZone(s.timeZone));
      await saveEligibleStations(this.db, profile.user.id, profile.user.app, list, Date.now());
      return list;
    });
  }

  async forfeit(userId: number, blockId: string): Promise<PlatformResult<null>> {
    this.bind(userId);
    return this.forRoute(async (profile) => {
      await this.withToken(profile, (platform, token) => platform.forfeit(token, blockId));
      this.schedule = null;
      this.profile = null;
      return null;
    });
  }

  async checkIn(userId: number, blockId: string): Promise<PlatformResult<ScheduledBlock>> {
    this.bind(userId);
    return this.forRoute((profile) => this.withToken(profile, (platform, token) => platform.checkIn(token, blockId)));
  }

  /** Platform errors cross the RPC boundary as plain values (an Error's class does not survive it). */
  private async forRoute<T>(run: (profile: DriverProfile) => Promise<T>): Promise<PlatformResult<T>> {
    try {
      const profile = await this.loadProfile(Date.now(), true);
      if (!profile) throw new PlatformError("refused", "No such driver");
      return { ok: true, value: await run(profile) };
    } catch (err) {
      return failedResult(err);
    }
  }

  // ---- The loop ----

  override async alarm(): Promise<void> {
    this.usage.alarm(this.lastPollAt, this.log);
    if (!this.running || this.userId === null) return;
    const now = Date.now();
    let profile = await this.loadProfile(now, false);
    // Before stopping, read again: a payment or a new connection may have come since the cached read.
    if (!profile || blocker(profile, now)) profile = await this.loadProfile(now, true);
    const blocked = profile ? blocker(profile, now) : "setup";
    if (!profile || blocked) {
      await this.halt(blocked ?? "setup");
      return;
    }
    const earliest = earliestPoll(this.lastPollAt, this.interval, now);
    if (now < earliest) {
      await this.ctx.storage.setAlarm(earliest);
      return;
    }
    await this.ledger.flushUnrecorded();
    const plan = this.planFor(profile, now);
    if (!plan.searching) {
      this.plannedAt = null;
      await this.ctx.storage.setAlarm(wakeWhilePaused(plan.opensAt, profile.user.expirationAt, now));
      return;
    }
    if (this.backoff.until > now) {
      await this.ctx.storage.setAlarm(this.backoff.until);
      return;
    }
    await this.poll(profile, now);
    if (!this.running) return;
    const { interval, plannedAt, lastPollAt, backoff } = this;
    this.plannedAt = nextPoll({ now: Date.now(), random: Math.random(), interval, plannedAt, lastPollAt, backoff, expirationAt: profile.user.expirationAt });
    await this.ctx.storage.setAlarm(this.plannedAt);
  }

  private async poll(profile: DriverProfile, now: number): Promise<void> {
    const platform = platformFor(this.env, profile.user.app, { rateLimitRetries: 0 });
    const token = await this.accessToken(profile, platform, now);
    if (!token) return;

    // Read before asking for offers, so no extra platform call sits between an offer and its accept.
    const held = await this.commitments(profile, platform, token, now);
    // The platform counts when its offers call arrives, which is some time after it is sent and
    // before its answer comes back. The gap to the next call is measured from the answer: measured
    // from the sending, a call held up on its way (a busy runtime or network) would arrive closer
    // to the next one than the platform allows. The sending is kept too, so a restart while the
    // call is out cannot send the next one early.
    this.polled();
    let list: PlatformOffer[];
    try {
      list = await platform.offers(
        token,
        profile.filters!.stations.map((s) => s.id),
      );
    } catch (err) {
      this.polled();
      await this.failed(err, profile);
      return;
    }
    this.polled();
    if (this.backoff.level !== 0 || this.backoff.until !== 0) {
      this.backoff = { level: 0, until: 0 };
      this.ctx.storage.kv.put("backoff", this.backoff);
    }

    // Judged at the moment the answer arrived (the buffer counts from then). The disliked ones are
    // recorded after the accepts, so nothing but judging stands between an offer and its accept.
    const fresh = offersToJudge(list, (id) => this.ledger.decided(id));
    const { takes, disliked } = judgeOffers(fresh, toCaptureFilters(profile.filters!), profile.stations, Date.now());
    // An accept whose answer never came may have won its block: until that is known (below, from
    // the platform's schedule, or by asking again while it is listed), nothing overlapping it is asked for.
    const context = { platform, token, ledger: this.ledger, profile, now };
    const accepted = await acceptInRounds(takes, held, context);
    this.recentWins.push(...accepted.wins);
    const records = [...accepted.records, ...disliked.map(({ offer, reasons }) => this.ledger.decide(profile, offer, "disliked", now, { reasons }))];
    const won = [...accepted.won];
    let stalled = accepted.stalled;
    if (!stalled) {
      const settled = await settleUnlisted(this.ledger.unlisted(new Set(list.map((o) => o.id))), context);
      if (settled.schedule) this.schedule = settled.schedule;
      this.recentWins.push(...settled.wins);
      records.push(...settled.records);
      won.push(...settled.won);
      stalled = settled.stalled;
    }

    await this.ledger.record(records);
    for (const record of won) {
      this.log.info("capture.won", { offerId: record.platformOfferId, payCents: record.payCents });
      this.keep(textWonBlock(this.env, this.log, profile.user, record));
    }
    if (stalled) await this.failed(stalled, profile);
    this.ledger.prune(now);
  }

  /** The poll's time, in memory and in storage. */
  private polled() {
    this.lastPollAt = Date.now();
    this.ctx.storage.kv.put("lastPollAt", this.lastPollAt);
  }

  /** Won blocks (ours in D1, and the platform's schedule, which includes blocks taken in its own app). */
  private async commitments(profile: DriverProfile, platform: DeliveryPlatform, token: string, now: number): Promise<Commitment[]> {
    // Blocks won since the profile and the schedule were read are not in them yet; records still
    // waiting for D1 (after a restart) are not in D1 either.
    this.recentWins = this.recentWins.filter((c) => c.endsAt > now);
    if (!this.schedule || now - this.schedule.at > SCHEDULE_TTL_MS) {
      try {
        this.schedule = { blocks: await platform.scheduledBlocks(token), at: now };
      } catch (err) {
        // Our own records still prevent overlaps among the blocks we took.
        this.log.warn("capture.schedule_unavailable", { error: err instanceof Error ? err.message : String(err) });
      }
    }
    return heldBlocks([...profile.commitments, ...this.recentWins, ...this.ledger.unrecordedWins(now)], this.schedule?.blocks ?? [], now);
  }

  /** A failed call: a refused token is refreshed at once; anything else backs off (poll-pacing.ts). */
  private async failed(err: unknown, profile: DriverProfile) {
    const e = err instanceof PlatformError ? err : new PlatformError("unavailable", String(err));
    if (e.kind === "refused") {
      // The access token was refused before its time: refresh now, once; a refused refresh ends the connection.
      this.tokens.forget();
      const platform = platformFor(this.env, profile.user.app, { rateLimitRetries: 0 });
      await this.accessToken(profile, platform, Date.now(), true);
      return;
    }
    const { waitMs, ...backoff } = backoffAfter(this.backoff, e, this.interval, Date.now());
    this.backoff = backoff;
    this.ctx.storage.kv.put("backoff", this.backoff);
    this.log.warn("capture.backoff", { kind: e.kind, waitMs, message: e.message });
  }

  /** A current access token (token-refresh.ts); null when there is none (the engine has stopped, or backs off). */
  private async accessToken(profile: DriverProfile, platform: DeliveryPlatform, now: number, force = false): Promise<string | null> {
    const answer = await this.tokens.accessToken(profile.account?.sealedTokens, platform, now, force);
    if (answer.kind === "token") return answer.accessToken;
    if (answer.kind === "refused") await this.refused(profile, answer.why);
    else await this.failed(answer.error, profile);
    return null;
  }

  /** Runs a platform call for a route with a current token, refreshing once if the token is refused. */
  private withToken<T>(profile: DriverProfile, call: (platform: DeliveryPlatform, token: string) => Promise<T>): Promise<T> {
    const platform = platformFor(this.env, profile.user.app);
    return withAccessToken(
      (force) => this.accessToken(profile, platform, Date.now(), force),
      (token) => call(platform, token),
    );
  }

  /** The platform refused the refresh token: disconnected, system off, and the driver is told. */
  private async refused(profile: DriverProfile | null, why: string) {
    this.tokens.forget();
    if (profile?.account?.sealedTokens) {
      await endConnection(this.db, profile.user.id, "refused", Date.now());
      this.log.warn("capture.disconnected", { why });
      this.keep(textDisconnected(this.env, this.log, profile.user));
    }
    this.profile = null;
    await this.halt("disconnected");
  }

  /** Keeps the object alive until a text is sent. */
  private keep(sending: Promise<void> | null) {
    if (sending) this.ctx.waitUntil(sending);
  }

  private async halt(reason: StopReason) {
    this.setRunning(false, reason);
    this.plannedAt = null;
    await this.ctx.storage.deleteAlarm();
    // Records D1 did not take yet would otherwise wait for an alarm that no longer comes.
    await this.ledger.flushUnrecorded();
    if (this.userId !== null) await setSystemStatus(this.db, this.userId, "stop");
  }

  private setRunning(running: boolean, reason: StopReason) {
    this.running = running;
    this.stopReason = reason;
    this.ctx.storage.kv.put("running", running);
    this.ctx.storage.kv.put("stopReason", reason);
  }

  private bind(userId: number) {
    if (this.userId === userId) return;
    if (this.userId !== null) throw new Error(`This capture session belongs to user ${this.userId}, not ${userId}`);
    this.userId = userId;
    this.ctx.storage.kv.put("userId", userId);
    this.log = createLogger({ task: "capture", userId });
  }

  private async loadProfile(now: number, fresh: boolean): Promise<DriverProfile | null> {
    if (!fresh && this.profile && now - this.profileAt < PROFILE_TTL_MS) return this.profile;
    this.profile = await loadDriverProfile(this.db, this.userId!, now);
    this.profileAt = now;
    return this.profile;
  }

  /** Whether to search now (see `plan`). */
  private planFor(profile: DriverProfile, now: number): SearchPlan {
    const cached = this.plan?.for === profile ? this.plan.plan : null;
    if (cached && planHolds(cached, now)) return cached;
    const zones = [...profile.stations.values()].map((s) => s.timeZone);
    const plan = searchPlan(profile.filters?.schedule ?? {}, zones, now);
    this.plan = { for: profile, plan };
    return plan;
  }
}
