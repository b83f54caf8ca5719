import type { InsightPeriod } from "../../shared/insights";
import type { WhatIfRequest } from "../../shared/insights-requests";
import { enforceCallerLimits, limitFor } from "../auth/rate-limit";
import { historyOf } from "../platform/history-client";

/**
 * The insights of a driver, for the driver or an administrator acting for them: worked out in the
 * driver's engine object over their own history (platform/history-insights.ts).
 */

type Db = Parameters<typeof enforceCallerLimits>[0];

/** The report over the last `days`: earnings per station-local week, the market, findings. */
export const insightsReport = (env: Pick<Env, "CAPTURE_SESSION">, driverId: number, days: InsightPeriod) => historyOf(env, driverId).insights(driverId, days);

/** Other filters replayed over the driver's history; it changes nothing. Limited per caller (`askedBy`: the driver, or the administrator). */
export async function whatIf(db: Db, env: Pick<Env, "CAPTURE_SESSION">, ask: { driverId: number; askedBy: number }, request: WhatIfRequest) {
  await enforceCallerLimits(db, [limitFor("whatIfPerUser", String(ask.askedBy))]);
  return historyOf(env, ask.driverId).whatIf(ask.driverId, request);
}
