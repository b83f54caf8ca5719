import { DurableObject } from "cloudflare:workers";
import { type Commitment, heldBlocks, judgeOffers, offersToJudge } from "../../shared/accept-plan";
import { type DriverFilters, toCaptureFilters } from "../../shared/driver-filters";
import type { HistoryOffer, InsightPeriod, InsightsReport, WhatIfResult } from "../../shared/insights";
import type { WhatIfRequest } from "../../shared/insights-requests";
import { isKnownTimeZone } from "../../shared/zoned-time";
import { createDb, type Db } from "../db/client";
import { createLogger, type Logger } from "../log";
import { acceptInRounds, settleUnlisted } from "./accept-rounds";
import { BlockActions, type ForfeitAnswer } from "./block-actions";
import { CaptureUsage } from "./capture-usage";
import {
  type DriverContact,
  type DriverProfile,
  endConnection,
  loadDriverProfile,
  openTokens,
  saveEligibleStations,
  saveTokens,
  setSystemStatus,
} from "./driver-store";
import { textDisconnected, textInBackground, textWonBlock } from "./driver-texts";
import { blocker, type EngineStatus, failedResult, type PlatformResult, runningStatus, type StopReason } from "./engine-status";
import { HistoryReports } from "./history-reports";
import { HistoryUpkeep } from "./history-upkeep";
import { platformFor } from "./http-platform";
import { OfferHistory, type OfferStatus } from "./offer-history";
import { OfferLedger } from "./offer-ledger";
import { type DeliveryPlatform, PlatformError, type PlatformOffer, type PlatformStation, type ScheduledBlock } from "./platform";
import { LOCKED_OUT, PlatformHolds } from "./platform-holds";
import { type Backoff, backoffAfter, earliestPoll, lockoutMsOf, nextPacedPoll, pollIntervalMs, wakeWhilePaused } from "./poll-pacing";
import { requestSignerFor } from "./request-signer";
import { planHolds, type SearchPlan, searchPlan } from "./search-plan";
import { PlatformTokenHolder, withAccessToken } from "./token-refresh";

/**
 * The capture engine of one driver (docs/engine.md): a Durable Object whose alarm loop, while the
 * system is on, service is paid and a schedule window is open (or about to open), polls the
 * platform at the configured interval with jitter (poll-pacing.ts), accepts the offers the accept
 * plan picks (accept-plan.ts: pay per hour first, never overlapping, within the daily cap) and
 * records every offer once in the driver's offer history, in its own storage (offer-history.ts):
 * won, disliked (with reasons) or gone; won blocks are copied to D1, where other drivers' views and
 * the admin's figures read them. This object does the I/O: the platform's calls, D1, its storage,
 * the alarm and the texts.
 *
 * What must survive a restart lives in the object's storage: whether it runs and why it stopped,
 * the offers already decided and accepts whose outcome is unknown (offer-ledger.ts), the history
 * with the won blocks D1 does not have yet, the last poll time (so a restart cannot poll early)
 * and back-off. A poll that brings nothing new writes nothing to D1.
 * The platform tokens stay sealed in D1 and are opened only here (token-refresh.ts).
 */

/**
 * The profile (user row, filters, stations) is re-read this often while searching, and whenever
 * told: filters and connections call `reload`, every change of service time calls `resume`
 * (capture.ts), and texts read the driver's number, language and opt-out afresh. So a poll that
 * brings nothing new reads nothing from D1; this is the net for anything else (a station renamed).
 */
const PROFILE_TTL_MS = 15 * 60_000;
/** The platform's own schedule (blocks won elsewhere count for overlaps and the cap) is re-read this often. */
const SCHEDULE_TTL_MS = 15 * 60_000;
/** The history is pruned (RETENTION) at most this often, and a stopped object wakes this often to prune it. */
const DAY_MS = 86_400_000;
const HOUSEKEEPING_EVERY_MS = DAY_MS;
/** While a 420 stops the search, the object looks this often whether a request signer has been configured. */
const SEARCH_HOLD_WAKE_MS = 60 * 60_000;

/** A history row, with when its forfeit was asked if it waits for a lockout's end (block-actions.ts). */
export type WithForfeitQueued = HistoryOffer & { forfeitQueuedAt: number | null };
export type OffersPageData = { counts: Record<OfferStatus, number>; rows: WithForfeitQueued[]; filters: DriverFilters | null };

export class CaptureSession extends DurableObject<Env> {
  private userId: number | null;
  private running: boolean;
  private stopReason: StopReason;
  private readonly ledger: OfferLedger;
  private readonly history: OfferHistory;
  private readonly reports: HistoryReports;
  private readonly upkeep: HistoryUpkeep;
  private backoff: Backoff;
  private lastPollAt: number | null;
  private plannedAt: number | null = null;
  private profile: DriverProfile | null = null;
  private profileAt = 0;
  private readonly tokens: PlatformTokenHolder;
  /** The adapter, kept while the connection is (Flex's keeps the account's eligible areas). */
  private adapter: { app: "flex" | "spark"; platform: DeliveryPlatform } | null = null;
  private schedule: { blocks: ScheduledBlock[]; at: number } | null = null;
  /**
   * The search plan last worked out, for the profile it was read from: a plan holds until its
   * `until` (searching) or until the lead before `opensAt` (paused), so it is worked out again only
   * then or when the profile is read again. Working it out reads the clocks of ten days in each
   * station's zone, which cost more than the rest of a poll.
   */
  private plan: { for: DriverProfile; plan: SearchPlan } | null = null;
  private readonly db: Db;
  /** The pacing and what the platform's limits hold back (platform-holds.ts), in storage. */
  private holds: PlatformHolds;
  private readonly blockActions: BlockActions;
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
    this.history = new OfferHistory(ctx.storage.sql, kv);
    this.ledger = new OfferLedger(kv, this.history);
    this.reports = new HistoryReports(this.history);
    this.upkeep = new HistoryUpkeep(this.history, kv, this.db, HOUSEKEEPING_EVERY_MS, () => this.log);
    this.tokens = new PlatformTokenHolder(
      (sealed) => openTokens(sealed, env.MFA_ENCRYPTION_KEY),
      (tokens, now) => saveTokens(this.db, env.MFA_ENCRYPTION_KEY, this.userId!, tokens, now),
    );
    this.holds = new PlatformHolds(kv, pollIntervalMs(env), lockoutMsOf(env));
    this.log = createLogger({ task: "capture", userId: this.userId });
    this.blockActions = new BlockActions({
      history: this.history,
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
  private get interval(): number {
    return this.holds.pacing.intervalMs;
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

  /** Filters, zones, tokens or the user row changed: read them again before the next decision, and judge the disliked offers again. */
  async reload(userId: number): Promise<void> {
    this.bind(userId);
    this.ledger.rejudgeDisliked();
    this.profile = null;
    this.tokens.forget();
    this.adapter = null;
    this.schedule = null;
    if (this.running) await this.ctx.storage.setAlarm(earliestPoll(this.lastPollAt, this.interval, Date.now()));
  }

  /** The driver disconnects the platform account: the device is deregistered (best effort), the system stops and the tokens are dropped. */
  async disconnect(userId: number): Promise<void> {
    await this.deregisterDevice(userId);
    await endConnection(this.db, userId, "driver", Date.now());
    this.tokens.forget();
    this.adapter = null;
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

  // ---- The driver's offer history (offer-history.ts) ----

  /** A page of the offers seen, newest first, with the counts per status and the filters in force. */
  async offersPage(userId: number, query: { page: number; pageSize: number; status?: OfferStatus }): Promise<OffersPageData> {
    this.bind(userId);
    await this.upkeep.ensure(this.userId);
    const profile = await this.loadProfile(Date.now(), false);
    const rows = this.history.page(query.page, query.pageSize, query.status).map((r) => this.withForfeitQueued(r));
    return { counts: this.history.counts(), rows, filters: profile?.filters ?? null };
  }

  /** One offer of the history, or null. */
  async offer(userId: number, id: number): Promise<HistoryOffer | null> {
    this.bind(userId);
    await this.upkeep.ensure(this.userId);
    return this.history.byId(id);
  }

  /** Won blocks not given back that start in [from, to), by start (the calendar). */
  async blocksStarting(userId: number, from: number, to: number, limit: number): Promise<WithForfeitQueued[]> {
    this.bind(userId);
    await this.upkeep.ensure(this.userId);
    return this.history
      .wonStarting(from, to, limit + 1_000)
      .filter((o) => o.forfeitedAt === null)
      .slice(0, limit)
      .map((r) => this.withForfeitQueued(r));
  }

  /** A row with when its forfeit was asked, if it waits for a lockout's end. */
  private withForfeitQueued(row: HistoryOffer): WithForfeitQueued {
    return { ...row, forfeitQueuedAt: this.holds.forfeitQueuedAt(row.id) };
  }

  /** Offers shown since `from`, oldest first, at most `limit` (the insights, the export). */
  async offersSeenSince(userId: number, from: number, limit: number): Promise<HistoryOffer[]> {
    this.bind(userId);
    await this.upkeep.ensure(this.userId);
    return this.history.seenSince(from, limit);
  }

  /** The driver's insights (src/worker/driver/insights.ts), worked out here beside the history (history-reports.ts). */
  async insights(userId: number, days: InsightPeriod): Promise<InsightsReport> {
    this.bind(userId);
    await this.upkeep.ensure(this.userId);
    const now = Date.now();
    const profile = await this.loadProfile(now, false);
    return this.reports.insights(profile?.filters ?? null, days, now);
  }

  /** The what-if: the period's offers replayed under other filters (src/shared/replay.ts); `tookMs` counts the read too. */
  async whatIf(userId: number, request: WhatIfRequest): Promise<WhatIfResult> {
    this.bind(userId);
    await this.upkeep.ensure(this.userId);
    return this.reports.whatIf(request, Date.now());
  }

  /** Gives a won block back to the platform, then marks it in the history (and D1's copy); during a lockout it waits (block-actions.ts). */
  async forfeitBlock(userId: number, id: number): Promise<PlatformResult<ForfeitAnswer>> {
    this.bind(userId);
    await this.upkeep.ensure(this.userId);
    return this.blockActions.forfeit(id);
  }

  /** "I've arrived" for a won block, then marked in the history (and D1's copy). */
  async checkInBlock(userId: number, id: number): Promise<PlatformResult<{ id: number; arrivedAt: number }>> {
    this.bind(userId);
    await this.upkeep.ensure(this.userId);
    return this.blockActions.checkIn(id);
  }

  // ---- What the platform's limits hold (platform-holds.ts) ----

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
    if (this.userId === null) return;
    const now = Date.now();
    await this.upkeep.ensure(this.userId);
    await this.upkeep.housekeeping(this.userId, now);
    if (!this.running) {
      await this.blockActions.sendQueued();
      await this.wakeForHousekeeping(now);
      return;
    }
    let profile = await this.loadProfile(now, false);
    // Before stopping, read again: a payment or a new connection may have come since the cached read.
    if (!profile || blocker(profile, now)) profile = await this.loadProfile(now, true);
    const blocked = profile ? blocker(profile, now) : "setup";
    if (!profile || blocked) {
      await this.halt(blocked ?? "setup");
      return;
    }
    const earliest = Math.max(earliestPoll(this.lastPollAt, this.interval, now), this.holds.lockedUntil(now) ?? 0);
    if (now < earliest) {
      await this.ctx.storage.setAlarm(earliest);
      return;
    }
    // The lockout is over: the forfeits asked during it go first, then the search; a 420 on the offers call stops it.
    await this.blockActions.sendQueued();
    if (this.holds.searchHeld(requestSignerFor(this.env) !== null)) {
      await this.ctx.storage.setAlarm(now + SEARCH_HOLD_WAKE_MS);
      return;
    }
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
    const { plannedAt, lastPollAt, backoff } = this;
    const at = { now: Date.now(), random: Math.random(), plannedAt, lastPollAt, backoff, expirationAt: profile.user.expirationAt };
    this.plannedAt = nextPacedPoll(this.holds.pacing, at);
    await this.ctx.storage.setAlarm(this.plannedAt);
  }

  private async poll(profile: DriverProfile, now: number): Promise<void> {
    const platform = this.platformOf(profile.user.app);
    let token = await this.accessToken(profile, platform, now);
    if (!token) return;

    // Read before asking for offers, so no extra platform call sits between an offer and its accept.
    const held = await this.commitments(platform, token, now);
    // The platform counts when its offers call arrives, which is some time after it is sent and
    // before its answer comes back. The gap to the next call is measured from the answer: measured
    // from the sending, a call held up on its way (a busy runtime or network) would arrive closer
    // to the next one than the platform allows. The sending is kept too, so a restart while the
    // call is out cannot send the next one early.
    const listed = await this.listOffers(profile, platform, token);
    if (!listed) return;
    const list = listed.list;
    token = listed.token;
    if (this.backoff.level !== 0 || this.backoff.until !== 0) {
      this.backoff = { level: 0, until: 0 };
      this.ctx.storage.kv.put("backoff", this.backoff);
    }

    // Judged at the moment the answer arrived (the buffer counts from then; the records carry that
    // moment, so a replay of the history judges as the engine did). The disliked ones are recorded
    // in the same storage transaction as the accepts' "asking" marks, before any accept goes out:
    // whatever happens to the object after that, every offer of this answer is in the history or
    // in the ledger. Recording is synchronous, so nothing but judging stands between an offer and its accept.
    const judgedAt = Date.now();
    const fresh = offersToJudge(list, (id) => this.ledger.decided(id));
    const { takes, disliked } = judgeOffers(fresh, toCaptureFilters(profile.filters!), profile.stations, judgedAt);
    for (const { offer, reasons } of disliked) this.ledger.decide(profile, offer, "disliked", judgedAt, { reasons });
    // An accept whose answer never came may have won its block: until that is known (below, from
    // the platform's schedule, or by asking again while it is listed), nothing overlapping it is asked for.
    const context = { platform, token, ledger: this.ledger, profile, now: judgedAt };
    // Accepting paused by a captcha or a missing signature: the takes wait (judged again next poll), but one try once told.
    const asked = takes.slice(0, this.holds.acceptsAllowed());
    for (const offer of takes.slice(asked.length)) this.ledger.waiting(offer);
    const accepted = await acceptInRounds(asked, held, context);
    const won = [...accepted.won];
    let stalled = accepted.stalled;
    if (stalled && this.holds.acceptFailed(stalled, Date.now())) {
      this.log.warn("capture.accept_held", { kind: stalled.kind });
      stalled = null;
    } else if (!stalled && asked.length > 0) this.holds.acceptAnswered();
    if (!stalled) {
      const settled = await settleUnlisted(this.ledger.unlisted(new Set(list.map((o) => o.id))), context);
      if (settled.schedule) this.schedule = settled.schedule;
      won.push(...settled.won);
      stalled = settled.stalled;
    }

    // A block won without its platform id (Flex's accept names none): the next poll reads the schedule for it.
    if (won.some((r) => !r.blockId)) this.schedule = null;
    if (won.length > 0) await this.upkeep.shareWon(this.userId);
    for (const record of won) {
      this.log.info("capture.won", { offerId: record.platformOfferId, payCents: record.payCents });
      this.text((driver) => textWonBlock(this.env, this.log, driver, record));
    }
    if (stalled) await this.failed(stalled, profile);
    this.ledger.prune(now);
  }

  /**
   * The offers call; refused (Flex: a 403), the token is refreshed once and the call repeated, and
   * refused again right after a good refresh the connection ends. Null when the poll is over (its
   * failure handled).
   */
  private async listOffers(profile: DriverProfile, platform: DeliveryPlatform, token: string): Promise<{ list: PlatformOffer[]; token: string } | null> {
    const ids = profile.filters!.stations.map((s) => s.id);
    for (const retry of [false, true]) {
      this.polled();
      try {
        const list = await platform.offers(token, ids);
        this.polled();
        return { list, token };
      } catch (err) {
        this.polled();
        const refused = err instanceof PlatformError && err.kind === "refused";
        if (err instanceof PlatformError && err.kind === "signature_required") {
          // Without a signature every call would get the same answer: the search stops until a signer or an admin says otherwise.
          this.holds.holdSearch(Date.now(), requestSignerFor(this.env) !== null);
          this.log.warn("capture.signature_required", { status: err.status });
          return null;
        }
        if (refused && retry) await this.refused(profile, err.message);
        else if (!refused) await this.failed(err, profile);
        if (retry || !refused) return null;
      }
      const renewed = await this.accessToken(profile, platform, Date.now(), true);
      if (!renewed) return null;
      token = renewed;
    }
    return null;
  }

  /** While stopped, the object wakes once a day to prune its history, as long as it keeps any. */
  private async wakeForHousekeeping(now: number): Promise<void> {
    // A forfeit queued during a lockout goes out when it ends, system on or off.
    if (this.holds.queuedForfeits().length > 0) return this.ctx.storage.setAlarm(Math.max(now + 1000, this.holds.lockedUntil(now) ?? 0));
    if (this.upkeep.keepsAnything()) await this.ctx.storage.setAlarm(now + HOUSEKEEPING_EVERY_MS);
  }

  /** The poll's time, in memory and in storage. */
  private polled() {
    this.lastPollAt = Date.now();
    this.ctx.storage.kv.put("lastPollAt", this.lastPollAt);
  }

  /** Won blocks (ours in the history, and the platform's schedule, which includes blocks taken in its own app). */
  private async commitments(platform: DeliveryPlatform, token: string, now: number): Promise<Commitment[]> {
    if (!this.schedule || now - this.schedule.at > SCHEDULE_TTL_MS) {
      try {
        this.schedule = { blocks: await platform.scheduledBlocks(token), at: now };
        this.blockActions.giveIds(this.schedule.blocks, now);
      } catch (err) {
        // Our own records still prevent overlaps among the blocks we took.
        this.log.warn("capture.schedule_unavailable", { error: err instanceof Error ? err.message : String(err) });
      }
    }
    return heldBlocks(this.history.commitments(now), this.schedule?.blocks ?? [], now);
  }

  /** A failed call: a refused token is refreshed at once; anything else backs off (poll-pacing.ts). */
  private async failed(err: unknown, profile: DriverProfile) {
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
  private async accessToken(profile: DriverProfile, platform: DeliveryPlatform, now: number, force = false): Promise<string | null> {
    const answer = await this.tokens.accessToken(profile.account?.sealedTokens, platform, now, force);
    if (answer.kind === "token") return answer.accessToken;
    if (answer.kind === "refused") await this.refused(profile, answer.why);
    else await this.failed(answer.error, profile);
    return null;
  }

  /** Runs a platform call for a route with a current token, refreshing once if the token is refused. */
  private withToken<T>(profile: DriverProfile, call: (platform: DeliveryPlatform, token: string) => Promise<T>): Promise<T> {
    // A route's call may wait out a short modelled (Spark) rate limit; the engine's never does.
    const platform = this.holds.gated(platformFor(this.env, profile.user.app, { instanceId: () => this.tokens.instanceId() }));
    return withAccessToken(
      (force) => this.accessToken(profile, platform, Date.now(), force),
      (token) => call(platform, token),
      (why) => this.refused(profile, why),
    );
  }

  /** The driver's adapter; its capacity calls carry the instance id sealed with the tokens. */
  private platformOf(app: "flex" | "spark"): DeliveryPlatform {
    if (this.adapter?.app !== app) {
      const platform = platformFor(this.env, app, { rateLimitRetries: 0, instanceId: () => this.tokens.instanceId() });
      this.adapter = { app, platform: this.holds.gated(platform) };
    }
    return this.adapter.platform;
  }

  /** The platform refused the refresh token: disconnected, system off, and the driver is told. */
  private async refused(profile: DriverProfile | null, why: string) {
    this.tokens.forget();
    if (profile?.account?.sealedTokens) {
      await endConnection(this.db, profile.user.id, "refused", Date.now());
      this.log.warn("capture.disconnected", { why });
      this.text((driver) => textDisconnected(this.env, this.log, driver));
    }
    this.profile = null;
    await this.halt("disconnected");
  }

  /** Texts the driver as D1 says now (driver-texts.ts), keeping the object alive until it is sent. */
  private text(send: (driver: DriverContact) => Promise<void> | null) {
    if (this.userId !== null) this.ctx.waitUntil(textInBackground(this.db, this.userId, this.log, send));
  }

  private async halt(reason: StopReason) {
    this.setRunning(false, reason);
    this.plannedAt = null;
    await this.ctx.storage.deleteAlarm();
    if (this.userId !== null) {
      await setSystemStatus(this.db, this.userId, "stop");
      await this.upkeep.shareWon(this.userId);
    }
    await this.wakeForHousekeeping(Date.now());
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
    this.profile = await loadDriverProfile(this.db, this.userId!);
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
