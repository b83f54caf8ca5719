import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { RATE_LIMITS, type RateLimitName } from "../auth/rate-limit";
import { auditLog, driverFilters, rateLimits } from "../db/schema";
import { billingAdmin, driver, resellerWithClient } from "../test/billing-fixtures";
import { connectedDriver } from "../test/connected-driver";
import { call, db, json, signIn } from "../test/fixtures";

/**
 * The reads that cost far more than a page, each limited per caller (auth/rate-limit.ts): data
 * export, the what-if, another driver's calendar and reseller payout setup. Each test fills the
 * caller's window to one short of its limit, so the next request is the last one allowed.
 */

/** The caller's window of `name`, one request short of full. */
async function oneLeft(name: RateLimitName, callerId: number) {
  const { limit, windowMs } = RATE_LIMITS[name];
  await db.insert(rateLimits).values({ key: `${name}:${callerId}`, count: limit - 1, resetAt: Date.now() + windowMs });
}

/** The usual 429: our envelope, saying the wait, and Retry-After (within the window). */
async function expectRefused(res: Response, name: RateLimitName) {
  expect(res.status).toBe(429);
  const retryAfter = Number(res.headers.get("Retry-After"));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(RATE_LIMITS[name].windowMs / 1000);
  expect(await json(res)).toEqual({
    error: { code: "rate_limited", message: "Too many attempts. Try again later", details: { reason: "too_many_attempts", retryAfterSeconds: retryAfter } },
  });
}

describe("costly reads are limited per caller", () => {
  it("downloading my data: 10 an hour", async () => {
    expect(RATE_LIMITS.accountExportPerUser).toEqual({ limit: 10, windowMs: 3_600_000 });
    const user = await driver();
    await oneLeft("accountExportPerUser", user.id);
    expect((await call("/api/account/export", { token: user.token })).status).toBe(200);
    await expectRefused(await call("/api/account/export", { token: user.token }), "accountExportPerUser");
    // Another account's window is its own.
    const other = await driver();
    expect((await call("/api/account/export", { token: other.token })).status).toBe(200);
  });

  it("the what-if: 60 a minute, the driver's own and an administrator's for a driver", async () => {
    expect(RATE_LIMITS.whatIfPerUser).toEqual({ limit: 60, windowMs: 60_000 });
    const d = await connectedDriver();
    const { idToken } = await signIn(d.user);
    const { userId: _u, updatedAt: _t, ...filters } = (await db.select().from(driverFilters).where(eq(driverFilters.userId, d.user.id)).get())!;
    const body = { days: 7, filters };
    await oneLeft("whatIfPerUser", d.user.id);
    expect((await call("/api/driver/insights/what-if", { token: idToken, body })).status).toBe(200);
    await expectRefused(await call("/api/driver/insights/what-if", { token: idToken, body }), "whatIfPerUser");

    // An administrator's what-ifs count against the administrator, whichever driver they are for.
    const admin = await billingAdmin("support", false);
    const path = `/api/admin/users/${d.user.id}/dashboard/insights/what-if`;
    await oneLeft("whatIfPerUser", admin.id);
    expect((await call(path, { token: admin.token, body })).status).toBe(200);
    await expectRefused(await call(path, { token: admin.token, body }), "whatIfPerUser");
  });

  it("another driver's calendar: 200 a day per viewer, refused before its audit row", async () => {
    expect(RATE_LIMITS.calendarViewPerViewer).toEqual({ limit: 200, windowMs: 86_400_000 });
    const { reseller, client } = await resellerWithClient();
    const path = `/api/driver/calendar/${encodeURIComponent(client.phone)}?week=2031-05-15`;
    const views = async () =>
      (
        await db
          .select()
          .from(auditLog)
          .where(and(eq(auditLog.actorId, reseller.id), eq(auditLog.action, "driver.calendar_viewed")))
      ).length;
    await oneLeft("calendarViewPerViewer", reseller.id);
    expect((await call(path, { token: reseller.token })).status).toBe(200);
    expect(await views()).toBe(1);
    await expectRefused(await call(path, { token: reseller.token }), "calendarViewPerViewer");
    expect(await views()).toBe(1);
    // The driver's own calendar is not a view of someone else's.
    expect((await call("/api/driver/calendar?week=2031-05-15", { token: client.token })).status).toBe(200);
  });

  it("reseller payout setup: 10 an hour, starting and refreshing together", async () => {
    expect(RATE_LIMITS.resellerOnboardingPerUser).toEqual({ limit: 10, windowMs: 3_600_000 });
    const { reseller } = await resellerWithClient();
    await oneLeft("resellerOnboardingPerUser", reseller.id);
    const started = await call("/api/reseller/onboarding", { token: reseller.token, method: "POST" });
    expect(started.status).toBe(200);
    await expectRefused(await call("/api/reseller/onboarding", { token: reseller.token, method: "POST" }), "resellerOnboardingPerUser");
    await expectRefused(await call("/api/reseller/onboarding/refresh", { token: reseller.token, method: "POST" }), "resellerOnboardingPerUser");
  });
});
