import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Every error the API answers with, and the status each one maps to. */
const statusOf = {
  bad_request: 400,
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  payload_too_large: 413,
  upgrade_required: 426,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof statusOf;

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;
  readonly retryAfterSeconds?: number;

  constructor(code: ErrorCode, message: string, options: { details?: unknown; retryAfterSeconds?: number } = {}) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get status(): ContentfulStatusCode {
    return statusOf[this.code];
  }
}

export type ErrorEnvelope = { error: { code: ErrorCode; message: string; details?: unknown } };

export function errorResponse(c: Context, err: ApiError) {
  const body: ErrorEnvelope = { error: { code: err.code, message: err.message } };
  if (err.details !== undefined) body.error.details = err.details;
  if (err.retryAfterSeconds !== undefined) c.header("Retry-After", String(Math.max(1, Math.ceil(err.retryAfterSeconds))));
  return c.json(body, err.status);
}
