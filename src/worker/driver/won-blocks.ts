import { enforceCallerLimits, limitFor } from "../auth/rate-limit";
import type { SessionUser } from "../context";
import { ApiError } from "../errors";
import { unwrap } from "../platform/connection";
import { engineOf } from "../platform/engine-client";
import { NOT_SCHEDULED_YET, type PlatformResult } from "../platform/engine-status";
import { historyOf } from "../platform/history-client";

/**
 * What a driver does with a block they won: "I've arrived" and giving it back. Both name a block
 * of the driver's own history (404 for any other), reach the platform through the driver's
 * engine, and are limited per driver first.
 */

type Env_ = Pick<Env, "CAPTURE_SESSION" | "PLATFORM_CHECK_IN">;
type Driver = Pick<SessionUser, "id" | "status">;
type Db = Parameters<typeof enforceCallerLimits>[0];

/** Won, but the platform's schedule does not list the block yet: its id (what a forfeit or check-in names) is unknown. A 409. */
function notScheduledYet<T>(result: PlatformResult<T>): T {
  if (!result.ok && result.message === NOT_SCHEDULED_YET)
    throw new ApiError("conflict", "The platform has not scheduled this block yet: try again in a minute", { details: { reason: NOT_SCHEDULED_YET } });
  return unwrap(result);
}

/** "I've arrived" for a won block not given back, while the system is on, where the platform's check-in is modelled. */
export async function checkInWonBlock(db: Db, env: Env_, user: Driver, id: number) {
  const block = await historyOf(env, user.id).offer(user.id, id);
  if (block?.status !== "won" || block.forfeitedAt) throw new ApiError("not_found", "No such block");
  // No platform shows a public check-in call: it is modelled where configured, and not offered elsewhere.
  if (env.PLATFORM_CHECK_IN !== "modelled") throw new ApiError("conflict", "I've arrived is not available", { details: { reason: "check_in_unavailable" } });
  // docs/product.md: "I've arrived" only works while the system is on.
  if (user.status !== "start") throw new ApiError("conflict", "Turn on the system to use I've arrived", { details: { reason: "system_off" } });
  await enforceCallerLimits(db, [limitFor("platformBlockActionPerUser", String(user.id))]);
  return notScheduledYet(await engineOf(env, user.id).checkInBlock(user.id, block.id));
}

/**
 * Gives a won block back. One already given back answers when it was; during the platform's
 * lockout the forfeit is queued (`queued` in the answer) and the engine sends it when it ends.
 */
export async function forfeitWonBlock(db: Db, env: Env_, user: Driver, id: number) {
  const block = await historyOf(env, user.id).offer(user.id, id);
  if (block?.status !== "won") throw new ApiError("not_found", "No such block");
  if (block.forfeitedAt) return { id: block.id, forfeitedAt: block.forfeitedAt };
  await enforceCallerLimits(db, [limitFor("platformBlockActionPerUser", String(user.id))]);
  return notScheduledYet(await engineOf(env, user.id).forfeitBlock(user.id, block.id));
}
