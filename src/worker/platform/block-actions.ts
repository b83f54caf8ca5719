/**
 * What a driver does with a won block through the engine (docs/engine.md, "Calendar and
 * check-in"): give it back (forfeit) or say "I've arrived". A forfeit asked while the platform
 * locks the account out waits in the object's storage (platform-holds.ts) and goes out when the
 * lockout ends, before the next poll. The CaptureSession gives the calls their token and gate.
 */
import type { Logger } from "../log";
import { failedResult, NOT_SCHEDULED_YET, type PlatformResult } from "./engine-status";
import { matchingAssignment } from "./flex-answers";
import type { OfferHistory } from "./offer-history";
import { type DeliveryPlatform, PlatformError, type ScheduledBlock } from "./platform";
import type { PlatformHolds } from "./platform-holds";

export type ForfeitAnswer = { id: number; forfeitedAt: number } | { id: number; queued: true; sendsAt: number };

export type BlockActionsDeps = {
  history: OfferHistory;
  holds: () => PlatformHolds;
  /** Runs a capacity call for a route with a current token (gated, refreshed once if refused). */
  call<T>(run: (platform: DeliveryPlatform, token: string) => Promise<T>): Promise<PlatformResult<T>>;
  /** The platform's schedule as just read, or null when a forfeit changed it. */
  scheduleChanged(blocks: ScheduledBlock[] | null): void;
  shareWon(): Promise<void>;
  /** Wakes the object no later than `at` (a queued forfeit goes out then). */
  wakeBy(at: number): Promise<void>;
  log: () => Logger;
};

export class BlockActions {
  constructor(private readonly deps: BlockActionsDeps) {}

  /** Gives a won block back to the platform, then marks it in the history (and D1's copy); during a lockout it is queued. */
  async forfeit(id: number): Promise<PlatformResult<ForfeitAnswer>> {
    const { history } = this.deps;
    const holds = this.deps.holds();
    const block = history.byId(id);
    if (block?.status !== "won") return failedResult(new PlatformError("refused", "No such block"));
    if (block.forfeitedAt !== null) return { ok: true, value: { id, forfeitedAt: block.forfeitedAt } };
    const lockedUntil = holds.lockedUntil(Date.now());
    if (lockedUntil !== null || holds.forfeitQueuedAt(id) !== null) return this.queue(id, lockedUntil);
    const done = await this.forfeitNow(id);
    if (!done.ok && done.kind === "rate_limited" && holds.lockedUntil(Date.now()) !== null) return this.queue(id, holds.lockedUntil(Date.now()));
    return done;
  }

  /** "I've arrived" for a won block, then marked in the history (and D1's copy). */
  async checkIn(id: number): Promise<PlatformResult<{ id: number; arrivedAt: number }>> {
    const block = this.deps.history.byId(id);
    if (block?.status !== "won") return failedResult(new PlatformError("refused", "No such block"));
    const blockId = block.blockId ?? (await this.assignmentIdOf(id));
    if (!blockId) return failedResult(new PlatformError("rejected", NOT_SCHEDULED_YET, undefined, 409));
    const done = await this.deps.call((platform, token) => platform.checkIn(token, blockId));
    if (!done.ok) return done;
    const arrivedAt = done.value.arrivedAt ?? Date.now();
    this.deps.history.update(id, { arrivedAt });
    await this.deps.shareWon();
    return { ok: true, value: { id, arrivedAt } };
  }

  /**
   * The forfeits asked during a lockout, sent once it is over (oldest first). One the platform
   * limits again waits on; one it cannot reach now waits for the next alarm; any other answer ends it.
   */
  async sendQueued(): Promise<void> {
    const holds = this.deps.holds();
    for (const { id } of [...holds.queuedForfeits()]) {
      if (holds.lockedUntil(Date.now()) !== null) return;
      const done = await this.forfeitNow(id);
      if (!done.ok && (done.kind === "rate_limited" || done.kind === "unavailable")) return;
      holds.dropForfeit(id);
      if (!done.ok) this.deps.log().warn("capture.queued_forfeit_failed", { id, kind: done.kind, message: done.message });
    }
  }

  /** Won blocks whose id is not known get it from the scheduled assignment with their station and times. */
  giveIds(blocks: readonly ScheduledBlock[], now: number): void {
    for (const won of this.deps.history.awaitingIds(now)) {
      const match = matchingAssignment(blocks, won);
      if (match?.id) this.deps.history.update(won.id, { blockId: match.id });
    }
  }

  private async queue(id: number, lockedUntil: number | null): Promise<PlatformResult<ForfeitAnswer>> {
    const holds = this.deps.holds();
    holds.queueForfeit(id, Date.now());
    const sendsAt = lockedUntil ?? Date.now();
    await this.deps.wakeBy(sendsAt);
    return { ok: true, value: { id, queued: true, sendsAt } };
  }

  private async forfeitNow(id: number): Promise<PlatformResult<{ id: number; forfeitedAt: number }>> {
    const block = this.deps.history.byId(id);
    if (block?.status !== "won") return failedResult(new PlatformError("refused", "No such block"));
    if (block.forfeitedAt !== null) return { ok: true, value: { id, forfeitedAt: block.forfeitedAt } };
    // The accept's answer names no id: the schedule gives it (read now if it has not yet).
    const blockId = block.blockId ?? (await this.assignmentIdOf(id));
    if (!blockId) return failedResult(new PlatformError("rejected", NOT_SCHEDULED_YET, undefined, 409));
    const done = await this.deps.call((platform, token) => platform.forfeit(token, blockId));
    if (!done.ok) return done;
    this.deps.scheduleChanged(null);
    const forfeitedAt = Date.now();
    this.deps.history.update(id, { forfeitedAt });
    this.deps.holds().dropForfeit(id);
    await this.deps.shareWon();
    return { ok: true, value: { id, forfeitedAt } };
  }

  /** Reads the schedule now to find a won block's assignment id; null when it is not there (yet). */
  private async assignmentIdOf(id: number): Promise<string | null> {
    const read = await this.deps.call(async (platform, token) => {
      const blocks = await platform.scheduledBlocks(token);
      this.deps.scheduleChanged(blocks);
      this.giveIds(blocks, Date.now());
      return null;
    });
    if (!read.ok) return null;
    return this.deps.history.byId(id)?.blockId ?? null;
  }
}
