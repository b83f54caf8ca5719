import { describe, expect, it, vi } from "vitest";
import { ApiClientError } from "./api-client";
import { IDENTITY_RETRY_LIMIT_MS, identityRetryDelay, withIdentityRetry } from "./identity-retry";

const offline = () => new ApiClientError(0, "network_error", "Network error");
const gateway = () => new ApiClientError(503, "http_error", "Unavailable");

/** A clock that sleeping moves forward. */
function clock() {
  let t = 0;
  const waits: number[] = [];
  const sleep = async (ms: number) => {
    waits.push(ms);
    t += ms;
  };
  return { now: () => t, sleep, waits };
}

describe("identity retry", () => {
  it("gives up after 300000 ms", () => {
    expect(IDENTITY_RETRY_LIMIT_MS).toBe(300_000);
  });

  it("backs off exponentially, with jitter, up to a minute", () => {
    const delays = [0, 1, 2, 3, 4, 5, 6, 7].map((n) => identityRetryDelay(gateway(), n, true, () => 0.5));
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000]);
    expect(identityRetryDelay(gateway(), 0, true, () => 0)).toBe(500);
    expect(identityRetryDelay(gateway(), 0, true, () => 0.999)).toBe(1499);
  });

  it("retries only what the server cannot have acted on", () => {
    expect(identityRetryDelay(offline(), 0, false, () => 0.5)).toBe(1000);
    // Online, a network error may have reached the server (a code sent, a token rotated).
    expect(identityRetryDelay(offline(), 0, true)).toBeNull();
    for (const status of [502, 503, 504]) expect(identityRetryDelay(new ApiClientError(status, "x", "x"), 0, true)).not.toBeNull();
    for (const status of [400, 401, 404, 409, 429, 500]) expect(identityRetryDelay(new ApiClientError(status, "x", "x"), 0, true)).toBeNull();
    expect(identityRetryDelay(new Error("boom"), 0, false)).toBeNull();
  });

  it("answers as soon as a retry succeeds", async () => {
    const c = clock();
    const call = vi.fn().mockRejectedValueOnce(gateway()).mockRejectedValueOnce(gateway()).mockResolvedValue("tokens");
    await expect(withIdentityRetry(call, { ...c, random: () => 0.5 })).resolves.toBe("tokens");
    expect(call).toHaveBeenCalledTimes(3);
    expect(c.waits).toEqual([1000, 2000]);
  });

  it("stops before the next wait would pass 300000 ms and throws the last error", async () => {
    const c = clock();
    const call = vi.fn().mockRejectedValue(gateway());
    await expect(withIdentityRetry(call, { ...c, random: () => 0.5 })).rejects.toMatchObject({ status: 503 });
    const waited = c.waits.reduce((a, b) => a + b, 0);
    expect(waited).toBeLessThanOrEqual(300_000);
    expect(waited + 60_000).toBeGreaterThan(300_000);
    expect(call).toHaveBeenCalledTimes(c.waits.length + 1);
  });

  it("does not retry a wrong password", async () => {
    const c = clock();
    const call = vi.fn().mockRejectedValue(new ApiClientError(401, "unauthorized", "Phone number or password incorrect"));
    await expect(withIdentityRetry(call, c)).rejects.toMatchObject({ status: 401 });
    expect(call).toHaveBeenCalledOnce();
  });
});
