/**
 * Connecting a driver's platform account (docs/engine.md, "Connecting").
 *
 * Flex: the driver signs in on the platform's own page (a Flex password never reaches us). Each
 * attempt makes a PKCE verifier and a device serial, sealed in platform_sign_ins (kind "handoff")
 * with the page's address; the driver pastes the landing page's address back, and its code
 * registers the app as a device. The tokens, with the device serial and a new instance id, are
 * sealed in platform_accounts; the account is named by the registration's customer id and name.
 *
 * Spark (modelled): email and password go to the platform once and are never stored; a code or
 * approval challenge waits in platform_sign_ins with the platform's session sealed.
 */
import { and, eq, lt } from "drizzle-orm";
import { randomToken } from "../auth/random";
import { openSecret, sealSecret } from "../auth/secret-box";
import type { Db } from "../db/client";
import { platformSignIns } from "../db/schema";
import { ApiError } from "../errors";
import { type App, saveConnection } from "./driver-store";
import { engineOf } from "./engine-client";
import type { PlatformResult } from "./engine-status";
import { codeChallenge, newCodeVerifier, newDeviceSerial, newInstanceId, readLanding, signInUrl } from "./flex-sign-in";
import { flexPlatform, sparkPlatform } from "./http-platform";
import { type PlatformAccount, PlatformError, type PlatformTokens } from "./platform";

/** A challenge is answered within this long, as the platform's own sessions allow. */
const ATTEMPT_TTL_MS = 10 * 60_000;
const MAX_CODE_TRIES = 5;

export type ConnectionStep =
  | { status: "connected" }
  | { status: "code"; attemptId: string; destination: string | null }
  | { status: "approval"; attemptId: string };

type Deps = { db: Db; env: Env; userId: number; app: App; now: number };

/** Why a pasted landing address connects nothing (the screens say each in the driver's words). */
export type LandingRefusal = "not_landing" | "no_code" | "code_refused" | "attempt_over";

const landingRefused = (reason: LandingRefusal) => {
  const messages: Record<LandingRefusal, string> = {
    not_landing: "That is not the address of the platform's page after signing in",
    no_code: "That address has no sign-in code: copy the whole address of the page you landed on",
    code_refused: "The platform refused that sign-in (used or expired): sign in on its page again",
    attempt_over: "This sign-in is over: start again",
  };
  return new ApiError("unprocessable", messages[reason], { details: { reason } });
};

/** A route's platform call through the driver's engine: its value, or the failure as the API's error. */
export function unwrap<T>(result: PlatformResult<T>): T {
  if (result.ok) return result.value;
  throw platformFailure(new PlatformError(result.kind, result.message, result.retryAfterMs ?? undefined, result.status ?? undefined));
}

/** A platform failure as the API's error: wrong credentials 422, the platform's limit 429, down 503. */
export function platformFailure(err: unknown): ApiError {
  if (!(err instanceof PlatformError)) throw err;
  const details = { reason: err.kind };
  switch (err.kind) {
    case "refused":
      return new ApiError("unprocessable", err.message, { details });
    case "challenge_over":
      return new ApiError("unprocessable", err.message, { details });
    case "rate_limited": {
      const retryAfterSeconds = Math.max(1, Math.ceil((err.retryAfterMs ?? 5000) / 1000));
      return new ApiError("rate_limited", "The platform asked us to slow down. Try again shortly", {
        details: { ...details, retryAfterSeconds },
        retryAfterSeconds,
      });
    }
    case "rejected":
      return new ApiError("unprocessable", err.message, { details });
    // The driver's engine shows these states (GET /api/driver/engine); a route's call meets them too.
    case "captcha":
      return new ApiError("conflict", "The platform asks for a captcha: solve it in its app, then say so on the dashboard", { details });
    case "signature_required":
      return new ApiError("conflict", "The platform asks for a signature of its phone app, which we do not make", { details });
    default:
      return new ApiError("unavailable", "The platform is not answering. Try again in a minute", { details });
  }
}

async function connected(deps: Deps, account: PlatformAccount, tokens: PlatformTokens): Promise<ConnectionStep> {
  await saveConnection(deps.db, deps.env.MFA_ENCRYPTION_KEY, deps.userId, deps.app, account, tokens, deps.now);
  await deps.db.delete(platformSignIns).where(eq(platformSignIns.userId, deps.userId));
  await engineOf(deps.env, deps.userId).reload(deps.userId);
  return { status: "connected" };
}

/** Spark's modelled account is named by the email it signed in with. */
const emailAccount = (email: string): PlatformAccount => ({ customerId: email.toLowerCase(), name: email });

/** A Flex attempt: the platform's sign-in page for this attempt's PKCE challenge and device serial. Starting again replaces an earlier one. */
export async function startFlexSignIn(deps: Deps, language: "en" | "es") {
  const verifier = newCodeVerifier();
  const serial = newDeviceSerial();
  const url = signInUrl(deps.env.FLEX_SIGN_IN_BASE, await codeChallenge(verifier), serial, language);
  const attemptId = randomToken(18);
  const expiresAt = deps.now + ATTEMPT_TTL_MS;
  await deps.db.delete(platformSignIns).where(eq(platformSignIns.userId, deps.userId));
  await deps.db.insert(platformSignIns).values({
    id: attemptId,
    userId: deps.userId,
    kind: "handoff",
    sealedSession: await sealSecret(JSON.stringify({ verifier, serial }), deps.env.MFA_ENCRYPTION_KEY),
    signInUrl: url,
    expiresAt,
  });
  return { attemptId, signInUrl: url, expiresAt };
}

/**
 * The landing address the driver pasted: its code registers the device (once: the attempt is used
 * up whatever the platform answers, but a failure worth retrying — the platform down or slowing us
 * down — leaves it for another try).
 */
export async function finishFlexSignIn(deps: Deps, attemptId: string, landingUrl: string): Promise<ConnectionStep> {
  const attempt = await deps.db
    .select()
    .from(platformSignIns)
    .where(and(eq(platformSignIns.id, attemptId), eq(platformSignIns.userId, deps.userId)))
    .get();
  if (attempt?.kind !== "handoff" || attempt.expiresAt <= deps.now) {
    if (attempt) await deps.db.delete(platformSignIns).where(eq(platformSignIns.id, attemptId));
    throw landingRefused("attempt_over");
  }
  const landing = readLanding(deps.env.FLEX_SIGN_IN_BASE, landingUrl);
  if (!landing.ok) throw landingRefused(landing.reason);
  const { verifier, serial } = JSON.parse(await openSecret(attempt.sealedSession, deps.env.MFA_ENCRYPTION_KEY)) as { verifier: string; serial: string };
  let registered: Awaited<ReturnType<ReturnType<typeof flexPlatform>["register"]>>;
  try {
    registered = await flexPlatform(deps.env).register(landing.code, verifier, serial);
  } catch (err) {
    if (err instanceof PlatformError && err.kind === "refused") {
      await deps.db.delete(platformSignIns).where(eq(platformSignIns.id, attemptId));
      throw landingRefused("code_refused");
    }
    throw platformFailure(err);
  }
  // A device connected before is replaced: deregistered first (best effort).
  await engineOf(deps.env, deps.userId).deregisterDevice(deps.userId);
  // The device is this connection's: its serial (the attempt's) and a new instance id, sealed with the tokens.
  return connected(deps, registered.account, { ...registered.tokens, device: { serial, instanceId: newInstanceId() } });
}

export async function startConnection(deps: Deps, email: string, password: string): Promise<ConnectionStep> {
  let step: Awaited<ReturnType<ReturnType<typeof sparkPlatform>["signIn"]>>;
  try {
    step = await sparkPlatform(deps.env).signIn(email, password);
  } catch (err) {
    throw platformFailure(err);
  }
  if (step.kind === "tokens") return connected(deps, emailAccount(email), step.tokens);
  // One sign-in waits at a time; ended ones are cleared as we go.
  await deps.db.delete(platformSignIns).where(eq(platformSignIns.userId, deps.userId));
  const attemptId = randomToken(18);
  await deps.db.insert(platformSignIns).values({
    id: attemptId,
    userId: deps.userId,
    email,
    kind: step.kind,
    sealedSession: await sealSecret(step.session, deps.env.MFA_ENCRYPTION_KEY),
    destination: step.kind === "code" ? step.destination : null,
    expiresAt: deps.now + ATTEMPT_TTL_MS,
  });
  return step.kind === "code" ? { status: "code", attemptId, destination: step.destination } : { status: "approval", attemptId };
}

async function pendingAttempt(deps: Deps, attemptId: string, kind: "code" | "approval") {
  const attempt = await deps.db
    .select()
    .from(platformSignIns)
    .where(and(eq(platformSignIns.id, attemptId), eq(platformSignIns.userId, deps.userId)))
    .get();
  if (!attempt || attempt.kind !== kind) throw new ApiError("not_found", "No such sign-in: start again");
  if (attempt.expiresAt <= deps.now) {
    await deps.db.delete(platformSignIns).where(eq(platformSignIns.id, attemptId));
    throw new ApiError("unprocessable", "The sign-in expired: start again", { details: { reason: "challenge_over" } });
  }
  return attempt;
}

export async function answerConnectionCode(deps: Deps, attemptId: string, code: string): Promise<ConnectionStep> {
  const attempt = await pendingAttempt(deps, attemptId, "code");
  if (attempt.attempts >= MAX_CODE_TRIES) throw new ApiError("unprocessable", "Too many wrong codes: start again", { details: { reason: "challenge_over" } });
  // Counted before asking, so parallel guesses cannot exceed the tries.
  await deps.db
    .update(platformSignIns)
    .set({ attempts: attempt.attempts + 1 })
    .where(and(eq(platformSignIns.id, attemptId), lt(platformSignIns.attempts, MAX_CODE_TRIES)));
  try {
    const tokens = await sparkPlatform(deps.env).answerCode(await openSecret(attempt.sealedSession, deps.env.MFA_ENCRYPTION_KEY), code);
    return connected(deps, emailAccount(attempt.email ?? ""), tokens);
  } catch (err) {
    if (err instanceof PlatformError && err.kind === "challenge_over") await deps.db.delete(platformSignIns).where(eq(platformSignIns.id, attemptId));
    throw platformFailure(err);
  }
}

export async function checkConnectionApproval(deps: Deps, attemptId: string): Promise<ConnectionStep | { status: "pending" }> {
  const attempt = await pendingAttempt(deps, attemptId, "approval");
  try {
    const step = await sparkPlatform(deps.env).checkApproval(await openSecret(attempt.sealedSession, deps.env.MFA_ENCRYPTION_KEY));
    if (step.kind === "pending") return { status: "pending" };
    return connected(deps, emailAccount(attempt.email ?? ""), step.tokens);
  } catch (err) {
    if (err instanceof PlatformError && err.kind === "challenge_over") await deps.db.delete(platformSignIns).where(eq(platformSignIns.id, attemptId));
    throw platformFailure(err);
  }
}

export async function cancelConnection(deps: Deps, attemptId: string): Promise<void> {
  await deps.db.delete(platformSignIns).where(and(eq(platformSignIns.id, attemptId), eq(platformSignIns.userId, deps.userId)));
}
