/**
 * The capture engine's loop (docs/engine.md): while the system is on, service is paid and a
 * schedule window is open (or about to open), the alarm polls the platform at the account's
 * interval with jitter (poll-pacing.ts), accepts the offers the accept plan picks (accept-plan.ts:
 * pay per hour first, never overlapping, within the daily cap) and records every offer once in the
 * driver's offer history (offer-history.ts): won, disliked (with reasons) or gone; won blocks are
 * copied to D1, where other drivers' views and the admin's figures read them. A poll that brings
 * nothing new writes nothing to D1.
 */
import { type Commitment, heldBlocks, judgeOffers, offersToJudge } from "../../shared/accept-plan";
import { toCaptureFilters } from "../../shared/driver-filters";
import { acceptInRounds, settleUnlisted } from "./accept-rounds";
import type { DriverProfile } from "./driver-store";
import { wonBlockNotification } from "./driver-texts";
import { EngineState } from "./engine-state";
import { blocker } from "./engine-status";
import { type DeliveryPlatform, PlatformError, type PlatformOffer } from "./platform";
import { earliestPoll, nextPacedPoll, wakeWhilePaused } from "./poll-pacing";
import { requestSignerFor } from "./request-signer";

/** The platform's own schedule (blocks won elsewhere count for overlaps and the cap) is re-read this often. */
const SCHEDULE_TTL_MS = 15 * 60_000;
/** While a 420 stops the search, the object looks this often whether a request signer has been configured. */
const SEARCH_HOLD_WAKE_MS = 60 * 60_000;

export abstract class EngineLoop extends EngineState {
  /** The loop: one alarm, one poll at most, then the next alarm (or none). */
  async alarm(): Promise<void> {
    if (this.userId === null) return;
    const now = Date.now();
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
    const reloads = this.reloads;
    await this.poll(profile, now);
    // A reload (the driver's new filters) came while this poll waited on the platform: what it
    // disliked was judged by the old filters, so it is judged again by the next poll.
    if (this.reloads !== reloads) this.ledger.rejudgeDisliked();
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
    if (stalled && this.holds.acceptFailed(stalled, Date.now(), requestSignerFor(this.env) !== null)) {
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
      this.notify("blockWon", wonBlockNotification(this.userId!, record));
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
}
