import { ApiClientError } from "../../lib/api-client";
import { apiErrorKey } from "../../lib/forms";

/** The server's reason for refusing a code (src/worker/auth/codes.ts), from its error details. */
function reason(error: unknown): string | undefined {
  const details = error instanceof ApiClientError ? (error.details as { reason?: unknown } | undefined) : undefined;
  return typeof details?.reason === "string" ? details.reason : undefined;
}

const CODE_REASONS: Record<string, string> = {
  mismatch: "auth:errors.codeIncorrect",
  missing: "auth:errors.codeIncorrect",
  expired: "auth:errors.codeExpired",
  used: "auth:errors.codeUsed",
  exhausted: "auth:errors.codeExhausted",
};

/** Why a code was refused, in words; `fallbackKey` for anything else. */
export function codeErrorKey(error: unknown, fallbackKey: string): string {
  if (error instanceof ApiClientError && error.status === 400) return CODE_REASONS[reason(error) ?? ""] ?? fallbackKey;
  return apiErrorKey(error, fallbackKey);
}

/**
 * Inside a sign-in challenge a 401 means the challenge itself is over (timed out, or too many
 * wrong codes): only starting again helps.
 */
export function challengeErrorKey(error: unknown): string {
  if (error instanceof ApiClientError && error.status === 401) return "auth:errors.challengeExpired";
  if (error instanceof ApiClientError && error.status === 400 && reason(error) === "same_password") return "auth:errors.samePassword";
  return codeErrorKey(error, "common:errors.couldntSignIn");
}

/** A refused code (not a rate limit or a fault): the code field gets the message too. */
export function isCodeRefusal(error: unknown): boolean {
  const why = reason(error);
  return error instanceof ApiClientError && error.status === 400 && why !== undefined && why in CODE_REASONS;
}

/** Registration refused an unknown referral code (422 naming the field). */
export function isUnknownReferral(error: unknown): boolean {
  return error instanceof ApiClientError && error.status === 422 && (error.details as { field?: unknown } | undefined)?.field === "referralCode";
}
