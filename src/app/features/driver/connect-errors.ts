import { ApiClientError } from "../../lib/api-client";
import { platformReason, retryAfterSeconds } from "./api";

/** A message for the screen: a translation key and the values it is worded with. */
export type ScreenMessage = { key: string; values: Record<string, number | string> };

/**
 * A 429 that says its wait (ours, or the platform's own) as "Too many attempts. Try again in …":
 * seconds under a minute, minutes under an hour, hours beyond (rounded up, so never sooner than
 * the server allows). Null for anything else.
 */
export function waitMessage(err: unknown): ScreenMessage | null {
  const seconds = retryAfterSeconds(err);
  if (!(err instanceof ApiClientError) || err.status !== 429 || seconds === null) return null;
  if (seconds < 60) return { key: "driver:connect.errors.tryAgainSeconds", values: { count: Math.max(1, Math.ceil(seconds)) } };
  if (seconds < 3600) return { key: "driver:connect.errors.tryAgainMinutes", values: { count: Math.ceil(seconds / 60) } };
  return { key: "driver:connect.errors.tryAgainHours", values: { count: Math.ceil(seconds / 3600) } };
}

/** The words for a failed connection step, by what the server said went wrong. */
function connectErrorKey(err: unknown): string {
  const reason = platformReason(err);
  if (reason === "refused") return "driver:connect.errors.refused";
  if (reason === "challenge_over") return "driver:connect.expired";
  if (err instanceof ApiClientError) {
    if (err.code === "network_error") return "auth:errors.network";
    if (err.status === 429) return "driver:connect.errors.rateLimited";
    if (err.status === 503) return "driver:connect.errors.unavailable";
    if (err.status === 404) return "driver:connect.noAttempt";
  }
  return "driver:connect.errors.generic";
}

/** A failed connection step as the screen's message: the wait when the server gave one, else connectErrorKey's words. */
export function connectError(err: unknown): ScreenMessage {
  return waitMessage(err) ?? { key: connectErrorKey(err), values: {} };
}

/**
 * What the platform's sign-in hand-off refused: the pasted address is not the landing page, or has
 * no code; the platform refused the code; the attempt is over. Each says what to do, and all offer a
 * new sign-in link (`restart`); after the last two the attempt cannot be used again (`over`).
 */
const HANDOFF_REFUSALS: Record<string, { over: boolean }> = {
  not_landing: { over: false },
  no_code: { over: false },
  code_refused: { over: true },
  attempt_over: { over: true },
};

type HandoffMessage = ScreenMessage & { restart: boolean; over: boolean };

/** A failed landing as the screen's message: a refusal of the hand-off in its own words, else connectError's. */
export function handoffError(err: unknown): HandoffMessage {
  const reason = platformReason(err);
  const refusal = reason !== null && err instanceof ApiClientError && err.status === 422 ? HANDOFF_REFUSALS[reason] : undefined;
  if (refusal) return { key: `driver:connect.errors.${reason}`, values: {}, restart: true, over: refusal.over };
  return { ...connectError(err), restart: false, over: false };
}

/** Why the Worker refused "I've arrived" or a forfeit on a won block, in the screen's words; null for anything else. */
const BLOCK_REFUSALS: Record<string, string> = {
  system_off: "common:errors.turnOnSystem",
  check_in_unavailable: "driver:dashboard.checkInUnavailable",
  not_scheduled_yet: "driver:dashboard.notScheduledYet",
};

export function blockRefusalKey(err: unknown): string | null {
  const reason = platformReason(err);
  return (reason !== null && BLOCK_REFUSALS[reason]) || null;
}
