import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rateLimits } from "../db/schema";
import { ApiError } from "../errors";
import { db, uniquePhone } from "../test/fixtures";
import { clientAddress, enforceRateLimits, limitFor, RATE_LIMITS } from "./rate-limit";

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("expected a rate-limit rejection");
}

describe("fixed-window rate limits in D1", () => {
  it("allows the limit, refuses the next hit with Retry-After, and opens a new window after it ends", async () => {
    const check = { key: `test:${uniquePhone()}`, limit: 3, windowMs: 60_000 };
    const start = 1_900_000_000_000;
    for (let i = 0; i < 3; i++) await enforceRateLimits(db, [check], start + i);
    const err = await rejection(enforceRateLimits(db, [check], start + 10_000));
    expect(err.status).toBe(429);
    expect(err.code).toBe("rate_limited");
    expect(err.retryAfterSeconds).toBe(50);
    // Still refused just before the window ends, allowed once it has.
    await expect(enforceRateLimits(db, [check], start + 59_999)).rejects.toBeInstanceOf(ApiError);
    await enforceRateLimits(db, [check], start + 60_000);
    const row = await db.select().from(rateLimits).where(eq(rateLimits.key, check.key)).get();
    expect(row).toEqual({ key: check.key, count: 1, resetAt: start + 120_000 });
  });

  it("counts every limit of a call and reports the longest wait", async () => {
    const subject = uniquePhone();
    const short = { key: `short:${subject}`, limit: 1, windowMs: 30_000 };
    const long = { key: `long:${subject}`, limit: 1, windowMs: 3_600_000 };
    const now = 1_900_000_000_000;
    await enforceRateLimits(db, [short, long], now);
    const err = await rejection(enforceRateLimits(db, [short, long], now + 1000));
    expect(err.retryAfterSeconds).toBe(3599);
  });

  it("keeps subjects apart", async () => {
    const a = limitFor("codeSendBurst", uniquePhone());
    const b = limitFor("codeSendBurst", uniquePhone());
    await enforceRateLimits(db, [a]);
    await enforceRateLimits(db, [b]);
    await expect(enforceRateLimits(db, [a])).rejects.toBeInstanceOf(ApiError);
  });

  it("names each limit and its numbers in one table", () => {
    expect(limitFor("passwordPerAccount", "flex:+13055550100")).toEqual({ key: "passwordPerAccount:flex:+13055550100", ...RATE_LIMITS.passwordPerAccount });
    expect(RATE_LIMITS.codeSendBurst).toEqual({ limit: 1, windowMs: 30_000 });
    expect(RATE_LIMITS.codeSendPerPurpose).toEqual({ limit: 5, windowMs: 3_600_000 });
  });

  it("buckets callers without CF-Connecting-IP together", () => {
    expect(clientAddress("203.0.113.9")).toBe("203.0.113.9");
    expect(clientAddress(undefined)).toBe("unknown");
    expect(clientAddress("  ")).toBe("unknown");
  });
});
