import type { SWRConfiguration } from "swr";
import { ApiClientError } from "../api-client";

/** The data cache's policy (docs/product.md, constants), for the user's read and any useSWR that wants it. */

type NetworkInformation = { effectiveType?: string; saveData?: boolean };

/** The same test SWR applies to its own defaults: 2G or data-saver counts as slow. */
export function isSlowConnection(): boolean {
  const connection = (globalThis.navigator as (Navigator & { connection?: NetworkInformation }) | undefined)?.connection;
  return !!connection && (connection.effectiveType === "slow-2g" || connection.effectiveType === "2g" || connection.saveData === true);
}

/** A 4xx other than a timeout or rate limit will answer the same again: retrying only adds load. */
function isRetryable(error: unknown): boolean {
  if (!(error instanceof ApiClientError)) return true;
  return error.status === 0 || error.status >= 500 || error.status === 408 || error.status === 429;
}

/**
 * The data cache constants (docs/product.md, constants): 2 s de-duplication, 5 s focus throttle, 5/10 s error retry, 3/5 s
 * loading timeout, jittered exponential back-off. They are SWR's own defaults too (a test pins
 * that), so every useSWR in the app gets them without an app-wide <SWRConfig>, which would put SWR
 * on the landing route. This config adds no retry of a 4xx that would only repeat.
 */
export function cacheConfig(slow = isSlowConnection()): SWRConfiguration {
  return {
    dedupingInterval: 2000,
    focusThrottleInterval: 5000,
    errorRetryInterval: slow ? 10_000 : 5000,
    loadingTimeout: slow ? 5000 : 3000,
    onErrorRetry: (error, _key, config, revalidate, { retryCount }) => {
      if (!isRetryable(error)) return;
      if (config.errorRetryCount !== undefined && retryCount > config.errorRetryCount) return;
      // Jittered exponential back-off: 0.5–1.5 × 2^n × the interval, n capped at 8.
      const timeout = Math.floor((Math.random() + 0.5) * (1 << Math.min(retryCount, 8))) * config.errorRetryInterval;
      setTimeout(revalidate, timeout, { retryCount });
    },
  };
}
