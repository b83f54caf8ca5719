import { eq } from "drizzle-orm";
import { users } from "../db/schema";
import { ApiError } from "../errors";
import { accountKey, findAccountUser } from "./accounts";
import { deliverCode, type IdentityDeps } from "./code-delivery";
import { ABSENT_ACCOUNT_HASH, hashPassword, needsRehash, verifyPassword } from "./password";
import { enforceRateLimits, limitFor } from "./rate-limit";
import type { SignInRequest } from "./requests";
import { advanceSignIn, type ChallengeData, createChallenge } from "./sign-in-flow";

const WRONG_CREDENTIALS = "Phone number or password incorrect";

/**
 * The first factor: a password, or an SMS code texted for a CUSTOM_CHALLENGE. Each factor is
 * limited apart: SMS sign-in by the code texts' own limits (per number and client), passwords per
 * account and client plus a high per-account ceiling, so wrong passwords from others never stop
 * the owner's SMS sign-in or reset.
 */
export async function signIn(deps: IdentityDeps, body: SignInRequest) {
  const account = { app: body.app, phone: body.phoneNumber };
  const limits =
    "method" in body
      ? [limitFor("signInPerAddress", deps.address)]
      : [
          limitFor("passwordPerAccountClient", `${accountKey(account)}:${deps.address}`),
          limitFor("passwordPerAccount", accountKey(account)),
          limitFor("signInPerAddress", deps.address),
        ];
  await enforceRateLimits(deps.db, limits, deps.now);
  const user = await findAccountUser(deps.db, body.app, body.phoneNumber);

  if ("method" in body) {
    // An unknown phone may use the reserve as a confirmed account would, so the answers stay the same.
    await deliverCode(deps, {
      app: body.app,
      phone: body.phoneNumber,
      purpose: "sign-in",
      language: user?.language ?? "en",
      send: !!user,
      mayUseReserve: !user || user.phoneVerified,
    });
    // An unknown phone gets a challenge of its own that no code passes, stored and counted like a
    // real one: the answers, the attempts left and the work done are the same either way.
    const data: ChallengeData = user ? { method: "sms", passed: [] } : { method: "sms", passed: [], app: body.app, phone: body.phoneNumber };
    const session = await createChallenge(deps.db, user?.id ?? null, "CUSTOM_CHALLENGE", data, deps.now);
    return { challenge: "CUSTOM_CHALLENGE" as const, session };
  }

  const pepper = deps.env.PASSWORD_PEPPER;
  const passwordOk = await verifyPassword(body.password, user?.passwordHash ?? ABSENT_ACCOUNT_HASH, pepper);
  if (!user?.passwordHash || !passwordOk) throw new ApiError("unauthorized", WRONG_CREDENTIALS);
  // Unconfirmed accounts get the confirm flow only. A temporary password (an account an admin
  // made) came by SMS to this phone, so knowing it proves the phone: that sign-in may go on.
  if (!user.phoneVerified && !user.mustChangePassword) {
    throw new ApiError("forbidden", "Confirm account to continue", { details: { reason: "unconfirmed" } });
  }
  if (needsRehash(user.passwordHash)) {
    await deps.db
      .update(users)
      .set({ passwordHash: await hashPassword(body.password, pepper) })
      .where(eq(users.id, user.id));
  }
  return advanceSignIn(deps, user, { method: "password", passed: [] });
}
