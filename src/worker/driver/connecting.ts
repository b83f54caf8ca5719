import { enforceCallerLimits, limitFor } from "../auth/rate-limit";
import type { SessionUser } from "../context";
import type { Db } from "../db/client";
import { ApiError } from "../errors";
import { answerConnectionCode, cancelConnection, checkConnectionApproval, finishFlexSignIn, startConnection, startFlexSignIn } from "../platform/connection";
import { engineOf } from "../platform/engine-client";

/**
 * Connecting a driver's platform account, as the driver's routes ask it (the flows are in
 * platform/connection.ts): which app may use which way in, and the limits on every call that
 * reaches the platform, per driver and, for a new attempt, per address. Connecting is open before
 * payment (docs/product.md: connecting comes before paying), so these limits and the confirmed
 * phone are what keep an unpaid account from testing credentials.
 */

type Caller = { db: Db; env: Env; user: Pick<SessionUser, "id" | "app" | "language">; address: string };

const deps = ({ db, env, user }: Caller) => ({ db, env, userId: user.id, app: user.app, now: Date.now() });

const onlyFlex = (user: Caller["user"]) => {
  if (user.app !== "flex") throw new ApiError("conflict", "Spark accounts connect with their email and password", { details: { reason: "not_flex" } });
};

const newAttemptLimits = (caller: Caller) =>
  enforceCallerLimits(caller.db, [limitFor("platformConnectPerUser", String(caller.user.id)), limitFor("platformConnectPerAddress", caller.address)]);

/** Flex: the platform's own sign-in page for a new attempt. */
export async function openFlexSignIn(caller: Caller) {
  onlyFlex(caller.user);
  await newAttemptLimits(caller);
  return startFlexSignIn(deps(caller), caller.user.language === "es" ? "es" : "en");
}

/** Flex: the landing page's address the driver pasted back after signing in there. */
export async function pasteFlexLanding(caller: Caller, attemptId: string, landingUrl: string) {
  onlyFlex(caller.user);
  await enforceCallerLimits(caller.db, [limitFor("platformCodePerUser", String(caller.user.id))]);
  return finishFlexSignIn(deps(caller), attemptId, landingUrl);
}

/** Spark: email and password, sent to the platform once. Flex has no such sign-in: its drivers sign in on the platform's page. */
export async function connectWithPassword(caller: Caller, email: string, password: string) {
  if (caller.user.app === "flex")
    throw new ApiError("conflict", "Flex accounts connect through the platform's sign-in page", { details: { reason: "not_spark" } });
  await newAttemptLimits(caller);
  return startConnection(deps(caller), email, password);
}

/** The code the platform sent the driver, for an attempt waiting on one. */
export async function answerCode(caller: Caller, attemptId: string, code: string) {
  await enforceCallerLimits(caller.db, [limitFor("platformCodePerUser", String(caller.user.id))]);
  return answerConnectionCode(deps(caller), attemptId, code);
}

/** Whether the driver has approved the sign-in in the platform's app yet. */
export async function checkApproval(caller: Caller, attemptId: string) {
  await enforceCallerLimits(caller.db, [limitFor("platformApprovalPerUser", String(caller.user.id))]);
  return checkConnectionApproval(deps(caller), attemptId);
}

export const cancelAttempt = (caller: Caller, attemptId: string) => cancelConnection(deps(caller), attemptId);

/** Disconnects: the engine stops and forgets the platform's tokens. */
export const disconnect = (caller: Pick<Caller, "env" | "user">) => engineOf(caller.env, caller.user.id).disconnect(caller.user.id);
