/**
 * When the engine polls the platform (docs/engine.md): every interval, jittered, planned from the
 * previous plan so lateness does not add up; never closer than a share of the interval to the last
 * poll's answer; and after a failure, not before its back-off ends. The interval adapts per account
 * to the platform's limit: after "Rate exceeded", no call until the lockout is over, then wider, and
 * narrowing again only slowly. Pure: the CaptureSession keeps the times and the pacing state and
 * sets its alarm.
 */
import type { PlatformErrorKind } from "./platform";
import { type Backoff, PACING } from "./poll-timing";
import { SEARCH_LEAD_MS } from "./search-plan";

// The timing and the adaptive interval are pure code without imports (poll-timing.ts), so the pacing bench runs them in Node.
export {
  type Backoff,
  earliestPoll,
  initialPacing,
  lockoutWaitMs,
  mayCallPlatform,
  type NextPollInput,
  nextPacedPoll,
  nextPoll,
  PACING,
  type PacingState,
  pacingAfterAnswer,
  pacingAfterLimit,
  pacingFloorMs,
} from "./poll-timing";

const MAX_BACKOFF_MS = 5 * 60_000;
const MAX_BACKOFF_LEVEL = 10;
const RETRY_AFTER_MARGIN_MS = 500;

/** The poll interval the environment sets (at least 250 ms; 2 s when unset or unreadable). */
export function pollIntervalMs(env: Pick<Env, "CAPTURE_POLL_INTERVAL_MS">): number {
  const ms = Number(env.CAPTURE_POLL_INTERVAL_MS);
  return Number.isFinite(ms) && ms >= 250 ? ms : 2000;
}

/** The engine's wait for the platform's first lockout (CAPTURE_LOCKOUT_MS; 30 minutes when unset or unreadable). */
export function lockoutMsOf(env: Pick<Env, "CAPTURE_LOCKOUT_MS">): number {
  const ms = Number(env.CAPTURE_LOCKOUT_MS);
  return Number.isFinite(ms) && ms >= 500 ? ms : PACING.lockoutMs;
}

/**
 * When a paused engine wakes: as the next window is about to open, or at the expiry, whichever is
 * first; a day at most (no window in the coming week), and a second at least.
 */
export function wakeWhilePaused(opensAt: number | null, expirationAt: number | null, now: number): number {
  const wake = Math.min(opensAt === null ? now + 86_400_000 : opensAt - SEARCH_LEAD_MS, expirationAt ?? Number.POSITIVE_INFINITY);
  return Math.max(now + 1000, wake);
}

/**
 * The back-off after a failed call at `now`: exponential from the interval (up to five minutes);
 * on a 429, at least what the platform asked. Retry-After counts from when the platform answered;
 * the margin covers the time its answer took to reach us, so the next poll never lands a moment
 * early and is refused again.
 */
export function backoffAfter(
  previous: Backoff,
  failure: { kind: PlatformErrorKind; retryAfterMs?: number },
  interval: number,
  now: number,
): Backoff & { waitMs: number } {
  const level = Math.min(previous.level + 1, MAX_BACKOFF_LEVEL);
  const exponential = interval * 2 ** (level - 1);
  const asked = failure.retryAfterMs === undefined ? 0 : failure.retryAfterMs + RETRY_AFTER_MARGIN_MS;
  const waitMs = Math.min(MAX_BACKOFF_MS, failure.kind === "rate_limited" ? Math.max(asked, exponential) : exponential);
  return { level, until: now + waitMs, waitMs };
}
