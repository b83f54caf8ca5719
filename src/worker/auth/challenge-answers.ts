import { eq } from "drizzle-orm";
import type { ChallengeName } from "../../shared/auth";
import { recordAudit } from "../cross-cutting/audit";
import { users } from "../db/schema";
import { ApiError } from "../errors";
import { type Account, accountKey, findAccountUser, findUserById } from "./accounts";
import { checkingAuthenticatorCode, checkingSmsCode } from "./code-checks";
import type { IdentityDeps } from "./code-delivery";
import { CodeRefusal, codeError, consumeCode } from "./codes";
import { hashPassword, verifyPassword } from "./password";
import { dropPendingSignup } from "./pending-signup";
import { assertNoSmsCodeHold, enforceRateLimits, limitFor } from "./rate-limit";
import type { RespondRequest } from "./requests";
import { openSecret } from "./secret-box";
import {
  advanceSignIn,
  CHALLENGE_MAX_ATTEMPTS,
  type ChallengeData,
  claimChallengeAttempt,
  consumeChallenge,
  endSessionsAndChallenges,
  findLiveChallenge,
  type User,
} from "./sign-in-flow";
import { claimTotpStep, verifyTotp } from "./totp";

const sessionExpired = (reason: "expired" | "exhausted" = "expired") =>
  new ApiError("unauthorized", reason === "exhausted" ? "Too many wrong tries. Sign in again" : "Session expired. Sign in again", { details: { reason } });

/** Codes answered inside a challenge share its attempt budget; the code's own budget applies too. */
function challengeCodeError(attemptsUsed: number, reason: "mismatch" | "used"): ApiError {
  const attemptsLeft = CHALLENGE_MAX_ATTEMPTS - attemptsUsed;
  if (attemptsLeft <= 0) return sessionExpired("exhausted");
  return reason === "used"
    ? new ApiError("bad_request", "This code was already used. Wait for the next one", { details: { reason, attemptsLeft } })
    : codeError("mismatch", attemptsLeft);
}

/** One answer being checked: the challenge row's state, and the attempt it has spent. */
type Answer = {
  deps: IdentityDeps;
  challenge: ChallengeName;
  data: ChallengeData;
  account: Account;
  /** The stand-in of an SMS sign-in for an unknown phone: it has no user, and no code passes it. */
  standIn: boolean;
  attemptsUsed: number;
  code: string;
};

/** What a passed challenge changes: the user as it now is, and whether the answer proved the phone. */
type Passed = { user: User; provedPhone: boolean };

async function answerSmsCode(answer: Answer, user: User | undefined): Promise<Passed> {
  const { deps, account, standIn, attemptsUsed } = answer;
  const purpose = answer.challenge === "SMS_MFA" ? "mfa" : "sign-in";
  await checkingSmsCode(deps, account, async () => {
    await consumeCode(deps.db, deps.env.PASSWORD_PEPPER, { ...account, purpose }, answer.code, deps.now);
    // Nobody was texted this code: a right guess is still a wrong answer.
    if (standIn) throw codeError("mismatch", CHALLENGE_MAX_ATTEMPTS - attemptsUsed);
  });
  const known = user!;
  // A code received by SMS proves the phone, as confirming it would; for an account not yet
  // confirmed that means its password (set by whoever registered) is void.
  if (!known.phoneVerified) return { user: { ...known, phoneVerified: true, passwordHash: null, mustChangePassword: true }, provedPhone: true };
  return { user: known, provedPhone: false };
}

async function answerAuthenticator(answer: Answer, user: User): Promise<Passed> {
  const { deps, account, attemptsUsed } = answer;
  const sealed = answer.challenge === "MFA_SETUP" ? answer.data.sealedSecret : user.mfaSecret;
  if (!sealed) throw sessionExpired();
  const secret = await openSecret(sealed, deps.env.MFA_ENCRYPTION_KEY);
  const step = await checkingAuthenticatorCode(deps, account, async () => {
    const matched = await verifyTotp(secret, answer.code, deps.now);
    if (matched === null) throw codeError("mismatch", CHALLENGE_MAX_ATTEMPTS - attemptsUsed);
    return matched;
  });
  if (!(await claimTotpStep(deps.db, user.id, step))) throw challengeCodeError(attemptsUsed, "used");
  if (answer.challenge !== "MFA_SETUP") return { user, provedPhone: false };
  await recordAudit(deps.db, { actorId: user.id, action: "auth.mfa_enabled", target: `user:${user.id}`, details: { method: "totp" } }, deps.now);
  return { user: { ...user, mfaMethod: "totp", mfaSecret: sealed }, provedPhone: false };
}

async function answerNewPassword(deps: IdentityDeps, user: User, newPassword: string): Promise<Passed> {
  const pepper = deps.env.PASSWORD_PEPPER;
  if (user.passwordHash && (await verifyPassword(newPassword, user.passwordHash, pepper))) {
    throw new ApiError("bad_request", "Choose a password different from the temporary one", { details: { reason: "same_password" } });
  }
  // Reaching this step took the SMS code or the temporary password texted to the phone: it is proven.
  const changed: User = { ...user, passwordHash: await hashPassword(newPassword, pepper), mustChangePassword: false, phoneVerified: true };
  await recordAudit(
    deps.db,
    { actorId: user.id, action: "auth.password_changed", target: `user:${user.id}`, details: { via: "NEW_PASSWORD_REQUIRED" } },
    deps.now,
  );
  return { user: changed, provedPhone: false };
}

function answerChallenge(answer: Answer, user: User | undefined, newPassword: string | undefined): Promise<Passed> {
  switch (answer.challenge) {
    case "SMS_MFA":
    case "CUSTOM_CHALLENGE":
      return answerSmsCode(answer, user);
    case "SOFTWARE_TOKEN_MFA":
    case "MFA_SETUP":
      return answerAuthenticator(answer, user!);
    case "NEW_PASSWORD_REQUIRED":
      return answerNewPassword(answer.deps, user!, newPassword!);
  }
}

/**
 * One answer to a sign-in challenge: the session must be live and expect this challenge, the
 * answer spends one of its attempts before it is checked, and a right answer moves the sign-in on
 * (`tokens` or the next challenge). An SMS code that proves an unconfirmed account's phone, and a
 * new password, end whatever was signed in or pending before.
 */
export async function respondToChallenge(deps: IdentityDeps, body: RespondRequest) {
  const { db } = deps;
  await enforceRateLimits(db, [limitFor("codeCheckPerAddress", deps.address)], deps.now);
  const row = await findLiveChallenge(db, body.session, deps.now);
  if (!row) throw sessionExpired();
  const challenge = row.challenge as ChallengeName;
  if (challenge !== body.challenge) {
    throw new ApiError("bad_request", `This sign-in expects ${challenge}`, { details: { reason: "wrong_challenge", expected: challenge } });
  }
  if (challenge === "NEW_PASSWORD_REQUIRED" ? !body.newPassword : !body.code) {
    const field = challenge === "NEW_PASSWORD_REQUIRED" ? "newPassword" : "code";
    throw new ApiError("validation_failed", `${field}: Required`, { details: [{ path: field, message: "Required" }] });
  }
  const data = (row.data ?? { method: "password", passed: [] }) as ChallengeData;
  // The stand-in of an SMS sign-in for an unknown phone goes through the same steps as a real one.
  const standIn = row.userId === null;
  const found = standIn ? undefined : await findUserById(db, row.userId!);
  const account = found ? { app: found.app, phone: found.phone } : data.app && data.phone ? { app: data.app, phone: data.phone } : null;
  if (standIn && account) await findAccountUser(db, account.app, account.phone);
  if (!account || (!standIn && !found)) throw sessionExpired();
  // A client held back from SMS codes for this account is refused before anything counts or an attempt is spent.
  if (challenge === "SMS_MFA" || challenge === "CUSTOM_CHALLENGE") await assertNoSmsCodeHold(db, accountKey(account), deps.address, deps.now);
  await enforceRateLimits(db, [limitFor("codeCheckPerAccountClient", `${accountKey(account)}:${deps.address}`)], deps.now);

  const attemptsUsed = await claimChallengeAttempt(db, body.session, deps.now);
  if (attemptsUsed === null) throw sessionExpired("exhausted");
  let passed: Passed;
  try {
    passed = await answerChallenge({ deps, challenge, data, account, standIn, attemptsUsed, code: body.code ?? "" }, found, body.newPassword);
  } catch (err) {
    // A wrong code that spent the challenge's last attempt: only starting again helps.
    if (err instanceof CodeRefusal && CHALLENGE_MAX_ATTEMPTS - attemptsUsed <= 0) throw sessionExpired("exhausted");
    throw err;
  }
  let { user } = passed;

  // Single use: of two concurrent right answers only the one that deletes the row goes on.
  if (!(await consumeChallenge(db, body.session))) throw sessionExpired();
  await db
    .update(users)
    .set({
      phoneVerified: user.phoneVerified,
      mfaMethod: user.mfaMethod,
      mfaSecret: user.mfaSecret,
      passwordHash: user.passwordHash,
      mustChangePassword: user.mustChangePassword,
    })
    .where(eq(users.id, user.id));
  // An SMS code proved the phone of an unconfirmed account without its registration password: what was typed at registration goes.
  if (passed.provedPhone) user = await dropPendingSignup(db, user, deps.now, "sms_sign_in");
  // A proof of the phone and a new password each end whatever was signed in or pending before.
  if (passed.provedPhone || challenge === "NEW_PASSWORD_REQUIRED") await endSessionsAndChallenges(db, user.id, deps.now, {}, deps.sessionsEnded);
  return advanceSignIn(deps, user, { method: data.method, passed: [...data.passed, challenge] });
}
