import { DurableObject } from "cloudflare:workers";
import { toCaptureFilters } from "../../shared/driver-filters";
import { evaluateOffer, type Reason } from "../../shared/offer-filter";
import { isKnownTimeZone, localReading } from "../../shared/zoned-time";
import { isInGoodStanding } from "../auth/user-item";
import { createDb, type Db } from "../db/client";
import { createLogger, type Logger } from "../log";
import { createSmsProvider } from "../providers/sms/provider";
import { disconnectedMessage, wonBlockMessage } from "./driver-messages";
import {
  type DriverProfile,
  endConnection,
  loadDriverProfile,
  type OfferRecord,
  openTokens,
  recordOffers,
  saveEligibleStations,
  saveTokens,
  setSystemStatus,
} from "./driver-store";
import { platformFor } from "./http-platform";
import {
  type DeliveryPlatform,
  PlatformError,
  type PlatformErrorKind,
  type PlatformOffer,
  type PlatformStation,
  type PlatformTokens,
  type ScheduledBlock,
} from "./platform";
import { SEARCH_LEAD_MS, type SearchPlan, searchPlan } from "./search-plan";

/**
 * The capture engine of one driver (docs/engine.md): a Durable Object whose alarm loop, while the
 * system is on, service is paid and a schedule window is open (or about to open), polls the
 * platform at the configured interval with jitter, judges each new offer with evaluateOffer,
 * accepts the best ones (pay per hour first, never overlapping, within the daily cap) and records
 * every offer once in D1: won, disliked (with reasons) or gone.
 *
 * What must survive a restart lives in the object's storage: whether it runs and why it stopped,
 * the offers already decided (so none is judged, accepted or recorded twice), accepts whose
 * outcome is unknown (resolved from the platform's schedule, never by accepting blindly again),
 * records D1 has not taken yet, the last poll time (so a restart cannot poll early) and back-off.
 * The platform tokens stay sealed in D1 and are opened only here.
 */

export type StopReason = "driver" | "expired" | "disconnected" | "setup";
type SkipReason = Reason | "overlap" | "daily_cap";

export type PlatformResult<T> =
  | { ok: true; value: T }
  | { ok: false; kind: PlatformErrorKind; message: string; retryAfterMs: number | null; status: number | null };

export type EngineStatus =
  /** `timeZone`: a selected station's, to show `until` and `opensAt` in (the dashboard speaks station time). */
  | { state: "searching"; stations: number; until: number; slowedUntil: number | null; lastPollAt: number | null; timeZone: string }
  | { state: "paused"; stations: number; opensAt: number | null; timeZone: string }
  | { state: "stopped"; reason: StopReason };

/**
 * A decided offer, or one not decided yet ("pending"; the offer is kept to record it). `asked`: an
 * accept went out and its answer never came, so the platform may have given us the block.
 */
type Seen = { status: "won" | "disliked" | "gone" | "pending"; forgetAt: number; offer?: PlatformOffer; asked?: boolean };

/** Profile (user row, filters, stations, won blocks) is re-read this often while searching, and whenever told. */
const PROFILE_TTL_MS = 60_000;
/** The platform's own schedule (blocks won elsewhere count for overlaps and the cap) is re-read this often. */
const SCHEDULE_TTL_MS = 15 * 60_000;
/** Tokens are refreshed this long before they expire. */
const REFRESH_MARGIN_MS = 5 * 60_000;
/** Polls are never closer than this share of the interval, however late the previous one ran. */
const MIN_GAP_SHARE = 0.85;
const JITTER_SHARE = 0.05;
const MAX_BACKOFF_MS = 5 * 60_000;
const RETRY_AFTER_MARGIN_MS = 500;
/** A decided offer is remembered this long past its expiry (it cannot be shown again after that). */
const FORGET_AFTER_MS = 10 * 60_000;

export function pollIntervalMs(env: Pick<Env, "CAPTURE_POLL_INTERVAL_MS">): number {
  const ms = Number(env.CAPTURE_POLL_INTERVAL_MS);
  return Number.isFinite(ms) && ms >= 250 ? ms : 2000;
}

/** Why the engine may not run for this driver now, or null when it may. */
function blocker(profile: DriverProfile, now: number): StopReason | null {
  if (!profile.user.accountConnected || !profile.account?.sealedTokens) return "disconnected";
  if (!profile.filters || profile.filters.stations.length === 0 || !profile.user.setupComplete) return "setup";
  if (!isInGoodStanding(profile.user, now)) return "expired";
  return null;
}

const minutes = (o: { startsAt: number; endsAt: number }) => (o.endsAt - o.startsAt) / 60_000;
const overlaps = (a: { startsAt: number; endsAt: number }, b: { startsAt: number; endsAt: number }) => a.startsAt < b.endsAt && b.startsAt < a.endsAt;

export class CaptureSession extends DurableObject<Env> {
  private userId: number | null;
  private running: boolean;
  private stopReason: StopReason;
  private seen = new Map<string, Seen>();
  private backoff: { level: number; until: number };
  private lastPollAt: number | null;
  private plannedAt: number | null = null;
  private profile: DriverProfile | null = null;
  private profileAt = 0;
  private tokens: PlatformTokens | null = null;
  private schedule: { blocks: ScheduledBlock[]; at: number } | null = null;
  /** Blocks this object won since its profile was last read (kept until they end). */
  private recentWins: { offerId: string; blockId: string | null; startsAt: number; endsAt: number }[] = [];
  private prunedAt = 0;
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

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const kv = ctx.storage.kv;
    this.userId = kv.get<number>("userId") ?? null;
    this.running = kv.get<boolean>("running") ?? false;
    this.stopReason = kv.get<StopReason>("stopReason") ?? "driver";
    this.backoff = kv.get<{ level: number; until: number }>("backoff") ?? { level: 0, until: 0 };
    this.lastPollAt = kv.get<number>("lastPollAt") ?? null;
    for (const [key, value] of kv.list<Seen>({ prefix: "seen:" })) this.seen.set(key.slice(5), value);
    this.db = createDb(env.DB);
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
    await this.ctx.storage.setAlarm(this.earliestPoll(now));
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
    this.tokens = null;
    this.schedule = null;
    if (this.running) await this.ctx.storage.setAlarm(this.earliestPoll(Date.now()));
  }

  /** The driver disconnects the platform account: the system stops and the tokens are dropped. */
  async disconnect(userId: number): Promise<void> {
    this.bind(userId);
    await endConnection(this.db, userId, "driver", Date.now());
    this.tokens = null;
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
    const zones = [...profile.stations.values()].map((s) => s.timeZone);
    const plan = this.planFor(profile, now);
    const stationCount = profile.filters.stations.length;
    const timeZone = zones[0] ?? "UTC";
    if (!plan.searching) return { state: "paused", stations: stationCount, opensAt: plan.opensAt, timeZone };
    return {
      state: "searching",
      stations: stationCount,
      until: plan.until,
      slowedUntil: this.backoff.until > now ? this.backoff.until : null,
      lastPollAt: this.lastPollAt,
      timeZone,
    };
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
      if (!(err instanceof PlatformError)) throw err;
      return { ok: false, kind: err.kind, message: err.message, retryAfterMs: err.retryAfterMs ?? null, status: err.status ?? null };
    }
  }

  // ---- The loop ----

  override async alarm(): Promise<void> {
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
    if (this.lastPollAt !== null && now < this.lastPollAt + this.interval * MIN_GAP_SHARE) {
      await this.ctx.storage.setAlarm(this.earliestPoll(now));
      return;
    }
    await this.flushUnrecorded();
    const plan = this.planFor(profile, now);
    if (!plan.searching) {
      // Wake when the next window is about to open, or at the expiry, whichever is first; a day at most.
      const wake = Math.min(plan.opensAt === null ? now + 86_400_000 : plan.opensAt - SEARCH_LEAD_MS, profile.user.expirationAt ?? Number.POSITIVE_INFINITY);
      this.plannedAt = null;
      await this.ctx.storage.setAlarm(Math.max(now + 1000, wake));
      return;
    }
    if (this.backoff.until > now) {
      await this.ctx.storage.setAlarm(this.backoff.until);
      return;
    }
    await this.poll(profile, now);
    if (this.running) await this.ctx.storage.setAlarm(this.nextPoll(Date.now(), profile));
  }

  private async poll(profile: DriverProfile, now: number): Promise<void> {
    const app = profile.user.app;
    const platform = platformFor(this.env, app, { rateLimitRetries: 0 });
    const token = await this.accessToken(profile, platform, now);
    if (!token) return;

    // Read before asking for offers, so no extra platform call sits between an offer and its accept.
    const commitments = await this.commitments(profile, platform, token, now);
    // The platform counts when its offers call arrives, which is some time after it is sent and
    // before its answer comes back. The gap to the next call is measured from the answer: measured
    // from the sending, a call held up on its way (a busy runtime or network) would arrive closer
    // to the next one than the platform allows. The sending is kept too, so a restart while the
    // call is out cannot send the next one early.
    this.lastPollAt = Date.now();
    this.ctx.storage.kv.put("lastPollAt", this.lastPollAt);
    let list: PlatformOffer[];
    try {
      list = await platform.offers(
        token,
        profile.filters!.stations.map((s) => s.id),
      );
    } catch (err) {
      this.lastPollAt = Date.now();
      this.ctx.storage.kv.put("lastPollAt", this.lastPollAt);
      await this.failed(err, profile);
      return;
    }
    this.lastPollAt = Date.now();
    this.ctx.storage.kv.put("lastPollAt", this.lastPollAt);
    if (this.backoff.level !== 0 || this.backoff.until !== 0) {
      this.backoff = { level: 0, until: 0 };
      this.ctx.storage.kv.put("backoff", this.backoff);
    }

    const records: OfferRecord[] = [];
    const won: OfferRecord[] = [];
    const listed = new Set(list.map((o) => o.id));
    const fresh = list.filter((o) => !o.hidden && (this.seen.get(o.id)?.status ?? "pending") === "pending");
    const filters = toCaptureFilters(profile.filters!);
    // Judged at the moment the answer arrived (the buffer counts from then).
    const judgedAt = Date.now();

    // Judge every new offer; the ones to take, best pay per hour first. The others are recorded
    // after the accepts, so nothing but judging stands between an offer and its accept.
    const takes: PlatformOffer[] = [];
    const disliked: { offer: PlatformOffer; reasons: SkipReason[] }[] = [];
    for (const offer of fresh) {
      const station = profile.stations.get(offer.stationId);
      let reasons: SkipReason[];
      try {
        reasons = evaluateOffer({ ...offer, timeZone: station?.timeZone ?? "UTC" }, filters, judgedAt).reasons;
      } catch {
        reasons = ["station"];
      }
      if (reasons.length === 0) takes.push(offer);
      else disliked.push({ offer, reasons });
    }
    takes.sort((a, b) => b.payCents / minutes(b) - a.payCents / minutes(a) || a.startsAt - b.startsAt || b.payCents - a.payCents);

    // Accepts go out in rounds: every take that overlaps nothing won and nothing else in the round
    // is asked for at once (so a second good offer in the same answer does not wait for the first's
    // reply); one that overlaps a better one waits to see whether that one was won.
    // An accept whose answer never came may have won its block: until that is known (below, from the
    // platform's schedule, or by asking again while it is listed), nothing overlapping it is asked for.
    const inDoubt = [...this.seen.values()].filter((s) => s.status === "pending" && s.asked && s.offer).map((s) => s.offer!);
    const deferred: PlatformOffer[] = [];
    let stalled: PlatformError | null = null;
    let remaining = takes;
    while (remaining.length > 0 && !stalled) {
      const round: PlatformOffer[] = [];
      const later: PlatformOffer[] = [];
      for (const offer of remaining) {
        if (commitments.some((c) => overlaps(c, offer))) records.push(this.decide(profile, offer, "disliked", now, { reasons: ["overlap"] }));
        else if (inDoubt.some((p) => p.id !== offer.id && overlaps(p, offer))) deferred.push(offer);
        else if (round.some((r) => overlaps(r, offer))) later.push(offer);
        else if (this.overCap(profile, [...commitments, ...round], offer)) {
          // Over the cap only if the round's blocks are all won: wait for them, unless there are none.
          if (round.length > 0) later.push(offer);
          else records.push(this.decide(profile, offer, "disliked", now, { reasons: ["daily_cap"] }));
        } else round.push(offer);
      }
      // Written before asking: after a crash here the outcome is read from the platform's schedule, never guessed.
      for (const offer of round) this.remember(offer.id, { status: "pending", forgetAt: offer.expiresAt + FORGET_AFTER_MS, offer, asked: true });
      const outcomes = await Promise.allSettled(round.map((offer) => platform.accept(token, offer.id)));
      outcomes.forEach((outcome, i) => {
        const offer = round[i]!;
        if (outcome.status === "rejected") {
          // Stays pending: the next poll tries again while the offer is listed, or reads the schedule.
          stalled = outcome.reason instanceof PlatformError ? outcome.reason : new PlatformError("unavailable", String(outcome.reason));
        } else if (outcome.value.kind === "won") {
          const block = { offerId: offer.id, blockId: outcome.value.block.id, startsAt: offer.startsAt, endsAt: offer.endsAt };
          commitments.push(block);
          this.recentWins.push(block);
          const record = this.decide(profile, offer, "won", now, { blockId: outcome.value.block.id });
          records.push(record);
          won.push(record);
        } else records.push(this.decide(profile, offer, "gone", now));
      });
      remaining = later;
    }
    // The platform failed an accept, or an accept in doubt overlaps: these wait for the next poll,
    // remembered so none goes unrecorded (an offer asked for before stays in doubt).
    for (const offer of [...remaining, ...deferred]) {
      this.remember(offer.id, { status: "pending", forgetAt: offer.expiresAt + FORGET_AFTER_MS, offer, asked: this.seen.get(offer.id)?.asked === true });
    }

    for (const { offer, reasons } of disliked) records.push(this.decide(profile, offer, "disliked", now, { reasons }));

    // Accepts whose outcome is unknown and whose offer is no longer listed: the schedule says won or gone.
    const unresolved = [...this.seen.entries()].filter(([id, s]) => s.status === "pending" && s.offer && !listed.has(id));
    if (unresolved.length > 0 && !stalled) {
      try {
        const blocks = await platform.scheduledBlocks(token);
        this.schedule = { blocks, at: Date.now() };
        for (const [, s] of unresolved) {
          const block = blocks.find((b) => b.offerId === s.offer!.id);
          const record = this.decide(profile, s.offer!, block ? "won" : "gone", now, block ? { blockId: block.id } : {});
          records.push(record);
          if (block) {
            won.push(record);
            this.recentWins.push({ offerId: s.offer!.id, blockId: block.id, startsAt: block.startsAt, endsAt: block.endsAt });
          }
        }
      } catch (err) {
        stalled = err instanceof PlatformError ? err : new PlatformError("unavailable", String(err));
      }
    }

    await this.record(records);
    for (const w of won) this.notifyWon(profile, w);
    if (stalled) await this.failed(stalled, profile);
    this.prune(now);
  }

  /** Marks an offer decided (in storage first) and builds its record. */
  private decide(
    profile: DriverProfile,
    offer: PlatformOffer,
    status: "won" | "disliked" | "gone",
    now: number,
    extra: { reasons?: SkipReason[]; blockId?: string } = {},
  ): OfferRecord {
    this.remember(offer.id, { status, forgetAt: Math.max(offer.expiresAt, now) + FORGET_AFTER_MS });
    const station = profile.stations.get(offer.stationId);
    return {
      userId: profile.user.id,
      app: profile.user.app,
      platformOfferId: offer.id,
      stationId: offer.stationId,
      stationName: station?.name ?? offer.stationId,
      timeZone: station?.timeZone ?? "UTC",
      status,
      reasons: extra.reasons ?? null,
      payCents: offer.payCents,
      startsAt: offer.startsAt,
      endsAt: offer.endsAt,
      blockId: extra.blockId ?? null,
      seenAt: now,
    };
  }

  private remember(offerId: string, seen: Seen) {
    this.seen.set(offerId, seen);
    this.ctx.storage.kv.put(`seen:${offerId}`, seen);
  }

  /** Records go to D1; any D1 will not take now wait in storage for the next alarm. */
  private async record(rows: OfferRecord[]) {
    if (rows.length === 0) return;
    try {
      await recordOffers(this.db, rows);
    } catch (err) {
      this.log.warn("capture.record_deferred", { rows: rows.length, error: err instanceof Error ? err.message : String(err) });
      const waiting = this.ctx.storage.kv.get<OfferRecord[]>("unrecorded") ?? [];
      this.ctx.storage.kv.put("unrecorded", [...waiting, ...rows]);
    }
  }

  private async flushUnrecorded() {
    const waiting = this.ctx.storage.kv.get<OfferRecord[]>("unrecorded");
    if (!waiting || waiting.length === 0) return;
    try {
      await recordOffers(this.db, waiting);
      this.ctx.storage.kv.delete("unrecorded");
    } catch (err) {
      this.log.warn("capture.record_still_deferred", { rows: waiting.length, error: err instanceof Error ? err.message : String(err) });
    }
  }

  private prune(now: number) {
    if (now - this.prunedAt < 5 * 60_000) return;
    this.prunedAt = now;
    for (const [id, s] of this.seen) {
      if (s.status !== "pending" && s.forgetAt < now) {
        this.seen.delete(id);
        this.ctx.storage.kv.delete(`seen:${id}`);
      }
    }
  }

  /** Won blocks (ours in D1, and the platform's schedule, which includes blocks taken in its own app). */
  private async commitments(profile: DriverProfile, platform: DeliveryPlatform, token: string, now: number) {
    // Blocks won since the profile and the schedule were read are not in them yet; records still
    // waiting for D1 (after a restart) are not in D1 either.
    this.recentWins = this.recentWins.filter((c) => c.endsAt > now);
    const waiting = (this.ctx.storage.kv.get<OfferRecord[]>("unrecorded") ?? [])
      .filter((r) => r.status === "won" && r.endsAt > now)
      .map((r) => ({ offerId: r.platformOfferId, blockId: r.blockId ?? null, startsAt: r.startsAt, endsAt: r.endsAt }));
    const list = [...profile.commitments, ...this.recentWins, ...waiting].filter((c) => c.endsAt > now).map((c) => ({ ...c }));
    if (!this.schedule || now - this.schedule.at > SCHEDULE_TTL_MS) {
      try {
        this.schedule = { blocks: await platform.scheduledBlocks(token), at: now };
      } catch (err) {
        // Our own records still prevent overlaps among the blocks we took.
        this.log.warn("capture.schedule_unavailable", { error: err instanceof Error ? err.message : String(err) });
      }
    }
    for (const b of this.schedule?.blocks ?? []) {
      if (b.endsAt > now && !list.some((c) => c.blockId === b.id || (b.offerId !== null && c.offerId === b.offerId))) {
        list.push({ offerId: b.offerId ?? b.id, blockId: b.id, startsAt: b.startsAt, endsAt: b.endsAt });
      }
    }
    return list;
  }

  /** Whether taking the offer would exceed the daily cap on the station-local day it starts. */
  private overCap(profile: DriverProfile, commitments: { startsAt: number; endsAt: number }[], offer: PlatformOffer): boolean {
    const cap = profile.filters?.dailyCapMinutes ?? 0;
    if (cap <= 0) return false;
    const tz = profile.stations.get(offer.stationId)?.timeZone ?? "UTC";
    const day = (t: number) => {
      const r = localReading(t, tz);
      return `${r.year}-${r.month}-${r.day}`;
    };
    const target = day(offer.startsAt);
    const booked = commitments.filter((c) => day(c.startsAt) === target).reduce((sum, c) => sum + minutes(c), 0);
    return booked + minutes(offer) > cap;
  }

  private async failed(err: unknown, profile: DriverProfile) {
    const e = err instanceof PlatformError ? err : new PlatformError("unavailable", String(err));
    if (e.kind === "refused") {
      // The access token was refused before its time: refresh now, once; a refused refresh ends the connection.
      this.tokens = null;
      const platform = platformFor(this.env, profile.user.app, { rateLimitRetries: 0 });
      await this.accessToken(profile, platform, Date.now(), true);
      return;
    }
    const level = Math.min(this.backoff.level + 1, 10);
    const exponential = this.interval * 2 ** (level - 1);
    // Retry-After counts from when the platform answered; the margin covers the time its answer took to
    // reach us, so the next poll never lands a moment early and is refused again.
    const asked = e.retryAfterMs === undefined ? 0 : e.retryAfterMs + RETRY_AFTER_MARGIN_MS;
    const wait = Math.min(MAX_BACKOFF_MS, e.kind === "rate_limited" ? Math.max(asked, exponential) : exponential);
    this.backoff = { level, until: Date.now() + wait };
    this.ctx.storage.kv.put("backoff", this.backoff);
    this.log.warn("capture.backoff", { kind: e.kind, waitMs: wait, message: e.message });
  }

  /** A current access token, refreshed when close to expiry; null when there is none (the engine has stopped). */
  private async accessToken(profile: DriverProfile, platform: DeliveryPlatform, now: number, force = false): Promise<string | null> {
    if (!this.tokens) {
      if (!profile.account?.sealedTokens) {
        await this.refused(profile, "no tokens");
        return null;
      }
      this.tokens = await openTokens(profile.account.sealedTokens, this.env.MFA_ENCRYPTION_KEY);
    }
    if (!force && this.tokens.accessExpiresAt - now > REFRESH_MARGIN_MS) return this.tokens.accessToken;
    try {
      this.tokens = await platform.refresh(this.tokens.refreshToken);
      await saveTokens(this.db, this.env.MFA_ENCRYPTION_KEY, profile.user.id, this.tokens, now);
      return this.tokens.accessToken;
    } catch (err) {
      if (err instanceof PlatformError && err.kind === "refused") {
        await this.refused(profile, err.message);
        return null;
      }
      // Could not refresh now: an access token still valid is used; otherwise back off and try again.
      if (this.tokens.accessExpiresAt > now && !force) return this.tokens.accessToken;
      await this.failed(err, profile);
      return null;
    }
  }

  /** Runs a platform call for a route with a current token, refreshing once if the token is refused. */
  private async withToken<T>(profile: DriverProfile, call: (platform: DeliveryPlatform, token: string) => Promise<T>): Promise<T> {
    const platform = platformFor(this.env, profile.user.app);
    const token = await this.accessToken(profile, platform, Date.now());
    if (!token) throw new PlatformError("refused", "The platform account is not connected");
    try {
      return await call(platform, token);
    } catch (err) {
      if (!(err instanceof PlatformError) || err.kind !== "refused") throw err;
      const renewed = await this.accessToken(profile, platform, Date.now(), true);
      if (!renewed) throw new PlatformError("refused", "The platform account is not connected");
      return call(platform, renewed);
    }
  }

  /** The platform refused the refresh token: disconnected, system off, and the driver is told. */
  private async refused(profile: DriverProfile | null, why: string) {
    this.tokens = null;
    if (profile?.account?.sealedTokens) {
      await endConnection(this.db, profile.user.id, "refused", Date.now());
      this.log.warn("capture.disconnected", { why });
      if (!profile.user.smsOptOut) {
        this.send(profile.user.phone, disconnectedMessage(profile.user.language, profile.user.app, this.env.APP_ORIGIN), "capture.disconnected_sms");
      }
    }
    this.profile = null;
    await this.halt("disconnected");
  }

  private notifyWon(profile: DriverProfile, record: OfferRecord) {
    this.log.info("capture.won", { offerId: record.platformOfferId, payCents: record.payCents });
    if (profile.user.smsOptOut) return;
    this.send(profile.user.phone, wonBlockMessage(profile.user.language, record), "capture.won_sms");
  }

  private send(to: string, body: string, event: string) {
    const sending = createSmsProvider(this.env)
      .send({ to, body })
      .then((outcome) => {
        if (!outcome.ok) this.log.error(`${event}_failed`, { errorCode: outcome.errorCode, errorMessage: outcome.errorMessage });
      })
      .catch((err: unknown) => this.log.error(`${event}_failed`, { error: err instanceof Error ? err.message : String(err) }));
    this.ctx.waitUntil(sending);
  }

  private async halt(reason: StopReason) {
    this.setRunning(false, reason);
    this.plannedAt = null;
    await this.ctx.storage.deleteAlarm();
    // Records D1 did not take yet would otherwise wait for an alarm that no longer comes.
    await this.flushUnrecorded();
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
    if (cached && (cached.searching ? now < cached.until : cached.opensAt !== null && now < cached.opensAt - SEARCH_LEAD_MS)) return cached;
    const zones = [...profile.stations.values()].map((s) => s.timeZone);
    const plan = searchPlan(profile.filters?.schedule ?? {}, zones, now);
    this.plan = { for: profile, plan };
    return plan;
  }

  /** The soonest a poll may run: never closer than the minimum gap to the last one. */
  private earliestPoll(now: number): number {
    return this.lastPollAt === null ? now : Math.max(now, this.lastPollAt + this.interval * MIN_GAP_SHARE);
  }

  /** The next poll: one jittered interval after the previous plan (so lateness does not accumulate), within the rules. */
  private nextPoll(now: number, profile: DriverProfile): number {
    const jitter = 1 + (Math.random() * 2 - 1) * JITTER_SHARE;
    const base = this.plannedAt !== null && this.plannedAt > now - this.interval ? this.plannedAt : (this.lastPollAt ?? now);
    let next = Math.max(base + this.interval * jitter, this.earliestPoll(now), this.backoff.until);
    // Stop on time: the expiry is checked when it comes, not a poll later.
    if (profile.user.expirationAt !== null && profile.user.expirationAt > now) next = Math.min(next, profile.user.expirationAt);
    this.plannedAt = next;
    return next;
  }
}
