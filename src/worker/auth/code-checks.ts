import { type Account, accountKey } from "./accounts";
import type { IdentityDeps } from "./code-delivery";
import { isWrongGuess } from "./codes";
import { assertNoSmsCodeHold, assertUnderLimits, countHits, countSmsCodeFailure, enforceRateLimits, limitFor } from "./rate-limit";

/**
 * Runs one SMS code check (confirm, reset, sign-in, SMS second factor). Anyone can have such a
 * code texted to any phone, so a wrong one holds back only the client that sent it, for this
 * account, with growing waits (SMS_CODE_BACKOFF); the owner on another client is not held. The
 * caller refuses a held client first (`assertNoSmsCodeHold`), before anything is counted.
 */
export async function checkingSmsCode<T>(deps: IdentityDeps, account: Account, check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (err) {
    if (isWrongGuess(err)) {
      const holdMs = await countSmsCodeFailure(deps.db, accountKey(account), deps.address, deps.now);
      deps.log.warn("auth.wrong_code", { factor: "sms", account: accountKey(account), address: deps.address, holdMs });
    }
    throw err;
  }
}

/**
 * Runs one authenticator (TOTP) check under the account's daily lockout: refused outright (429)
 * once the account has had its wrong codes for the day, and a wrong code counts towards it. Only
 * someone past the first factor gets here, so only they can spend it.
 */
export async function checkingAuthenticatorCode<T>(deps: IdentityDeps, account: Account, check: () => Promise<T>): Promise<T> {
  const lockout = limitFor("authenticatorFailuresPerAccount", accountKey(account));
  await assertUnderLimits(deps.db, [lockout], deps.now);
  try {
    return await check();
  } catch (err) {
    if (isWrongGuess(err)) {
      await countHits(deps.db, [lockout], deps.now);
      deps.log.warn("auth.wrong_code", { factor: "authenticator", account: lockout.key });
    }
    throw err;
  }
}

/**
 * The limits of one SMS code answer (confirm, reset): a client still held back for this account
 * is refused before anything counts; then the answer counts per account and client, and per client.
 */
export async function enforceSmsCodeCheckLimits(deps: IdentityDeps, account: Account): Promise<void> {
  await assertNoSmsCodeHold(deps.db, accountKey(account), deps.address, deps.now);
  await enforceRateLimits(
    deps.db,
    [limitFor("codeCheckPerAccountClient", `${accountKey(account)}:${deps.address}`), limitFor("codeCheckPerAddress", deps.address)],
    deps.now,
  );
}
