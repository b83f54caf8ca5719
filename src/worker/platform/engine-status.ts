/**
 * What the engine answers the Worker (docs/engine.md): whether it may run for a driver, the status
 * the dashboard shows, and platform failures as plain values (an Error's class does not survive
 * the Durable Object's RPC boundary).
 */
import { isInGoodStanding } from "../auth/user-item";
import type { DriverProfile } from "./driver-store";
import { PlatformError, type PlatformErrorKind } from "./platform";
import type { SearchPlan } from "./search-plan";

/** A won block the platform's schedule does not list yet: no id to forfeit or check in with (the result's message). */
export const NOT_SCHEDULED_YET = "not_scheduled_yet";

export type StopReason = "driver" | "expired" | "disconnected" | "setup";

export type PlatformResult<T> =
  | { ok: true; value: T }
  | { ok: false; kind: PlatformErrorKind; message: string; retryAfterMs: number | null; status: number | null };

export type EngineStatus =
  /** `timeZone`: a selected station's, to show `until` and `opensAt` in (the dashboard speaks station time). */
  | { state: "searching"; stations: number; until: number; slowedUntil: number | null; lastPollAt: number | null; timeZone: string }
  | { state: "paused"; stations: number; opensAt: number | null; timeZone: string }
  | { state: "stopped"; reason: StopReason };

/** Why the engine may not run for this driver now, or null when it may. */
export function blocker(profile: DriverProfile, now: number): StopReason | null {
  if (!profile.user.accountConnected || !profile.account?.sealedTokens) return "disconnected";
  if (!profile.filters || profile.filters.stations.length === 0 || !profile.user.setupComplete) return "setup";
  if (!isInGoodStanding(profile.user, now)) return "expired";
  return null;
}

/** The status of a running engine whose driver may use it: searching (slowed by a back-off) or paused. */
export function runningStatus(profile: DriverProfile, plan: SearchPlan, backoffUntil: number, lastPollAt: number | null, now: number): EngineStatus {
  const stations = profile.filters?.stations.length ?? 0;
  const timeZone = [...profile.stations.values()][0]?.timeZone ?? "UTC";
  if (!plan.searching) return { state: "paused", stations, opensAt: plan.opensAt, timeZone };
  return { state: "searching", stations, until: plan.until, slowedUntil: backoffUntil > now ? backoffUntil : null, lastPollAt, timeZone };
}

/** A PlatformError as a failed result; any other error is thrown on. */
export function failedResult(err: unknown): PlatformResult<never> {
  if (!(err instanceof PlatformError)) throw err;
  return { ok: false, kind: err.kind, message: err.message, retryAfterMs: err.retryAfterMs ?? null, status: err.status ?? null };
}
