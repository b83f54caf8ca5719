import { ApiClientError } from "../../lib/api-client";
import { platformReason } from "./api";

/** The words for a failed connection step, by what the server said went wrong. */
export function connectErrorKey(err: unknown): string {
  const reason = platformReason(err);
  if (reason === "refused") return "driver:connect.errors.refused";
  if (reason === "challenge_over") return "driver:connect.expired";
  if (err instanceof ApiClientError) {
    if (err.code === "network_error") return "auth:errors.network";
    if (err.status === 429) return "driver:connect.errors.rateLimited";
    if (err.status === 503) return "driver:connect.errors.unavailable";
    if (err.status === 404) return "driver:connect.noAttempt";
  }
  return "driver:connect.errors.generic";
}
