/**
 * The upkeep of a driver's offer history in their CaptureSession (offer-history.ts): pruned at
 * most daily, and its won blocks copied to D1 (where other drivers' views and the admin's figures
 * read them), deferred while D1 refuses.
 */
import type { Db } from "../db/client";
import type { Logger } from "../log";
import type { OfferHistory } from "./offer-history";

const PRUNED_AT = "history.prunedAt";

export class HistoryUpkeep {
  constructor(
    private readonly history: OfferHistory,
    private readonly kv: SyncKvStorage,
    private readonly db: Db,
    private readonly everyMs: number,
    private readonly log: () => Logger,
  ) {}

  /** Copies won blocks D1 does not have yet to D1; when D1 refuses they wait for the next alarm. */
  async shareWon(userId: number | null): Promise<void> {
    if (userId === null) return;
    try {
      await this.history.shareWon(this.db, userId, Date.now());
    } catch (err) {
      this.log().warn("capture.share_deferred", { blocks: this.history.unsharedCount(), error: err instanceof Error ? err.message : String(err) });
    }
  }

  /** Prunes the history (at most every `everyMs`) and shares what D1 still lacks. */
  async housekeeping(userId: number | null, now: number): Promise<void> {
    if ((this.kv.get<number>(PRUNED_AT) ?? 0) + this.everyMs <= now) {
      this.history.prune(now);
      this.kv.put(PRUNED_AT, now);
    }
    if (this.history.unsharedCount() > 0) await this.shareWon(userId);
  }

  /** Whether the history keeps anything a stopped object must wake for (pruning, sharing). */
  keepsAnything(): boolean {
    return this.history.oldestSeenAt() !== null || this.history.unsharedCount() > 0;
  }
}
