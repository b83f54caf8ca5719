import { describe, expect, it } from "vitest";
import type { SkipReason } from "../../shared/accept-plan";
import { driverFilters } from "../db/schema";
import { connectedDriver } from "../test/connected-driver";
import { recordInHistory } from "../test/engine-fixtures";
import { call, db, json, seedAdmin, signIn, signInAdmin } from "../test/fixtures";

/** /api/driver/insights and its what-if, for the driver and for an administrator acting for one. */

const HOUR = 3_600_000;

/** Offers the driver was shown over the last days, recorded in their history as the engine records them. */
async function seedHistory(userId: number, stationId: string) {
  const now = Date.now();
  const rows = Array.from({ length: 12 }, (_, i) => {
    const seenAt = now - (i + 1) * 6 * HOUR;
    const won = i % 4 === 0;
    return {
      app: "flex" as const,
      platformOfferId: `insights-${userId}-${i}`,
      stationId,
      stationName: "Test station",
      timeZone: "America/New_York",
      status: won ? ("won" as const) : ("disliked" as const),
      // The disliked ones pay $25/hour, under the $30 minimum; the won ones $40/hour.
      reasons: won ? null : (["hourly"] as SkipReason[]),
      payCents: won ? 8000 : 5000,
      startsAt: seenAt + 3 * HOUR,
      endsAt: seenAt + 5 * HOUR,
      blockId: won ? `B${i}` : null,
      seenAt,
    };
  });
  await recordInHistory(userId, rows);
}

async function driverWithHistory() {
  const d = await connectedDriver({ filters: { minHourlyCents: 3000 } });
  await seedHistory(d.user.id, d.stations[0]!);
  return { d, token: (await signIn(d.user)).idToken };
}

describe("insights", () => {
  it("answers the weeks earned, the market and what there is to tell", async () => {
    const { token } = await driverWithHistory();
    const report = await json(await call("/api/driver/insights?days=7", { token }));
    expect(report.earnings).toHaveLength(8);
    const earned = report.earnings.reduce((sum: number, w: { blocks: number }) => sum + w.blocks, 0);
    expect(earned).toBe(3);
    expect(report.market).toMatchObject({ days: 7, totals: { shown: 12, won: 3, disliked: 9, gone: 0, medianPayCents: 5000 } });
    expect(report.market.reasons).toEqual([{ reason: "hourly", count: 9 }]);
    expect(report.market.byHour).toHaveLength(24);
    expect(report.findings[0]).toMatchObject({ kind: "under_hourly", count: 9, medianHourlyCents: 2500, minHourlyCents: 3000 });
  });

  it("the what-if replays the period under other filters, beside what was taken", async () => {
    const { d, token } = await driverWithHistory();
    const filters = (await db.select().from(driverFilters).all()).find((f) => f.userId === d.user.id)!;
    const { userId: _u, updatedAt: _t, ...current } = filters;
    const same = await json(await call("/api/driver/insights/what-if", { token, body: { days: 7, filters: current } }));
    expect(same).toMatchObject({ days: 7, offers: 12, actual: { blocks: 3, payCents: 24_000 }, replay: { blocks: 3, newlyTaken: 0 } });
    const lower = await json(await call("/api/driver/insights/what-if", { token, body: { days: 7, filters: { ...current, minHourlyCents: 2000 } } }));
    // The disliked offers start 6 h apart and last 2 h: every one is taken, none overlapping.
    expect(lower.replay).toMatchObject({ blocks: 12, newlyTaken: 9 });
    expect(lower.replay.payCents).toBe(24_000 + 9 * 5000);
  });

  it("refuses a period it does not keep and filters that are not filters, changing nothing", async () => {
    const { token } = await driverWithHistory();
    expect((await call("/api/driver/insights?days=8", { token })).status).toBe(400);
    const res = await call("/api/driver/insights/what-if", { token, body: { days: 7, filters: { stations: [] } } });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ error: { code: "validation_failed" } });
  });

  it("an administrator sees a driver's insights as the driver does; an administrator's own account has none", async () => {
    const { d, token } = await driverWithHistory();
    const admin = await seedAdmin({ roleName: "support", roleProperties: { billingDetails: false } });
    const adminToken = (await signInAdmin(admin)).idToken;
    const mine = await json(await call("/api/driver/insights", { token }));
    const seen = await json(await call(`/api/admin/users/${d.user.id}/dashboard/insights`, { token: adminToken }));
    expect({ ...seen, now: 0 }).toEqual({ ...mine, now: 0 });
    expect((await call(`/api/admin/users/${admin.id}/dashboard/insights`, { token: adminToken })).status).toBe(404);
    expect((await call(`/api/admin/users/${d.user.id}/dashboard/insights`, { token })).status).toBe(403);
  });
});
