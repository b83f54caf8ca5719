/**
 * What any message provider answers for one send. Retryable failures (429, 5xx, time-outs) are
 * tried again by the caller; the others are final and keep the provider's error code.
 */
export type SendOutcome =
  | { ok: true; providerId: string }
  | { ok: false; retryable: boolean; errorCode: string; errorMessage: string; retryAfterSeconds?: number };
