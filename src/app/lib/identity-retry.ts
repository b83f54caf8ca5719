import { ApiClientError } from "./api-client";

/** Identity calls keep retrying for at most this long (the old product's identity client did the same). */
export const IDENTITY_RETRY_LIMIT_MS = 300_000;
const FIRST_DELAY_MS = 1000;
const LONGEST_DELAY_MS = 60_000;

type Options = {
  limitMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  online?: () => boolean;
  random?: () => number;
};

/**
 * Whether a failed identity call is worth sending again, and after how long. Only failures where
 * the server cannot have acted: the browser was offline (the request never left), or a gateway
 * answered for the Worker (502/503/504). A rate limit (429) is not retried: our windows last
 * minutes to an hour and the screen says so; anything else would answer the same again.
 */
export function identityRetryDelay(error: unknown, attempt: number, online: boolean, random = Math.random): number | null {
  if (!(error instanceof ApiClientError)) return null;
  const retryable = (error.status === 0 && !online) || error.status === 502 || error.status === 503 || error.status === 504;
  if (!retryable) return null;
  // Exponential back-off with jitter: 1 s, 2 s, 4 s … up to a minute, each ×0.5–1.5.
  return Math.round(Math.min(FIRST_DELAY_MS * 2 ** attempt, LONGEST_DELAY_MS) * (0.5 + random()));
}

/** Runs an identity call, retrying as identityRetryDelay says until 300000 ms have passed. */
export async function withIdentityRetry<T>(call: () => Promise<T>, options: Options = {}): Promise<T> {
  const {
    limitMs = IDENTITY_RETRY_LIMIT_MS,
    sleep = (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
    now = Date.now,
    online = () => globalThis.navigator?.onLine !== false,
    random = Math.random,
  } = options;
  const started = now();
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const delay = identityRetryDelay(err, attempt, online(), random);
      if (delay === null || now() - started + delay > limitMs) throw err;
      await sleep(delay);
    }
  }
}
