/**
 * What the engine answers the Worker (docs/engine.md): whether it may run for a driver, the status
 * the dashboard shows, and platform failures as plain values (an Error's class does not survive
 * the Durable Object's RPC boundary).
 */
import { isInGoodStanding } from "../auth/user-item";
import type { DriverProfile } from "./driver-store";
import { PlatformError, type PlatformErrorKind } from "./platform";
import type { AcceptHold, LimitState } from "./platform-holds";
import type { SearchPlan } from "./search-plan";

/** A won block the platform's schedule does not list yet: no id to forfeit or check in with (the result's message). */
export const NOT_SCHEDULED_YET = "not_scheduled_yet";

export type StopReason = "driver" | "expired" | "disconnected" | "setup";

export type PlatformResult<T> =
  | { ok: true; value: T }
  | { ok: false; kind: PlatformErrorKind; message: string; retryAfterMs: number | null; status: number | null };

export type { AcceptHold };

export type EngineStatus =
  /** `timeZone`: a selected station's, to show `until` and `opensAt` in (the dashboard speaks station time). `acceptHold`: accepting paused (platform-holds.ts). */
  | { state: "searching"; stations: number; until: number; slowedUntil: number | null; lastPollAt: number | null; timeZone: string; acceptHold: AcceptHold }
  | { state: "paused"; stations: number; opensAt: number | null; timeZone: string; acceptHold: AcceptHold }
  /** "Rate exceeded": no capacity call until `until` (searching resumes then); `forfeitsWaiting`: forfeits asked meanwhile, sent then. */
  | { state: "rate_limited"; stations: number; since: number; until: number; timeZone: string; forfeitsWaiting: number; acceptHold: AcceptHold }
  /** A 420 on the offers call: no search until a request signer is configured (none by default) or an admin clears it. */
  | { state: "signature_required"; stations: number; since: number; timeZone: string; signerConfigured: boolean }
  | { state: "stopped"; reason: StopReason };

/** What the platform's limits hold back, for the status (platform-holds.ts). */
export type HoldsView = { limit: LimitState; acceptHold: AcceptHold; forfeitsWaiting: number };

/** Why the engine may not run for this driver now, or null when it may. */
export function blocker(profile: DriverProfile, now: number): StopReason | null {
  if (!profile.user.accountConnected || !profile.account?.sealedTokens) return "disconnected";
  if (!profile.filters || profile.filters.stations.length === 0 || !profile.user.setupComplete) return "setup";
  if (!isInGoodStanding(profile.user, now)) return "expired";
  return null;
}

/** The status of a running engine whose driver may use it: held by the platform's limits, searching (slowed by a back-off) or paused. */
export function runningStatus(
  profile: DriverProfile,
  plan: SearchPlan,
  holds: HoldsView,
  backoffUntil: number,
  lastPollAt: number | null,
  now: number,
): EngineStatus {
  const stations = profile.filters?.stations.length ?? 0;
  const timeZone = [...profile.stations.values()][0]?.timeZone ?? "UTC";
  const { limit, acceptHold, forfeitsWaiting } = holds;
  if (limit.kind === "rate_limited") return { state: "rate_limited", stations, since: limit.since, until: limit.until, timeZone, forfeitsWaiting, acceptHold };
  if (limit.kind === "signature_required")
    return { state: "signature_required", stations, since: limit.since, timeZone, signerConfigured: limit.signerConfigured };
  if (!plan.searching) return { state: "paused", stations, opensAt: plan.opensAt, timeZone, acceptHold };
  return { state: "searching", stations, until: plan.until, slowedUntil: backoffUntil > now ? backoffUntil : null, lastPollAt, timeZone, acceptHold };
}

/** A PlatformError as a failed result; any other error is thrown on. */
export function failedResult(err: unknown): PlatformResult<never> {
  if (!(err instanceof PlatformError)) throw err;
  return { ok: false, kind: err.kind, message: err.message, retryAfterMs: err.retryAfterMs ?? null, status: err.status ?? null };
}
