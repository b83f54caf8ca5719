/**
 * One HTTP call to a provider with a hard time-out. A provider that never answers must not hold a
 * consumer forever, and a time-out (like a dropped connection) is a failure worth retrying.
 */
export type HttpCallResult = { ok: true; response: Response } | { ok: false; errorCode: "timeout" | "network_error"; errorMessage: string };

export async function callProvider(url: string, init: RequestInit, timeoutMs: number): Promise<HttpCallResult> {
  try {
    return { ok: true, response: await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) }) };
  } catch (err) {
    const name = err instanceof Error ? err.name : "";
    if (name === "TimeoutError" || name === "AbortError") return { ok: false, errorCode: "timeout", errorMessage: `No answer within ${timeoutMs} ms` };
    return { ok: false, errorCode: "network_error", errorMessage: err instanceof Error ? err.message : String(err) };
  }
}

/** The PROVIDER_TIMEOUT_MS setting, with a sane floor so a typo cannot make every call time out. */
export function providerTimeoutMs(env: Pick<Env, "PROVIDER_TIMEOUT_MS">): number {
  const ms = Number(env.PROVIDER_TIMEOUT_MS);
  return Number.isFinite(ms) && ms >= 100 ? ms : 10_000;
}

/** Retry-After as seconds: either delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  // An HTTP date always names its weekday and month; anything else Date.parse might take ("-5") is not one.
  if (!/^[A-Za-z]{3}, /.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** A provider's JSON error body, or null when it sent something else (an HTML error page, nothing). */
export async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
