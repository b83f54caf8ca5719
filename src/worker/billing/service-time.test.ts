import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { serviceTimeLedger, users } from "../db/schema";
import { db, seedUser } from "../test/fixtures";
import { adjustServiceTime, changeServiceTime, DAY_MS, ledgerPage } from "./service-time";

const NOW = 1_800_000_000_000;

async function expirationOf(userId: number) {
  return db.select({ expirationAt: users.expirationAt, goodStanding: users.goodStanding }).from(users).where(eq(users.id, userId)).get();
}

describe("changeServiceTime", () => {
  it("adds days from now when the service has expired or never started, and stacks on time left", async () => {
    const never = await seedUser();
    const expired = await seedUser({ expirationAt: NOW - 3 * DAY_MS });
    const active = await seedUser({ expirationAt: NOW + 2 * DAY_MS, goodStanding: true });
    for (const u of [never, expired, active]) {
      const result = await changeServiceTime(db, { userId: u.id, deltaMs: 7 * DAY_MS, kind: "payment", sourceKey: `test:${crypto.randomUUID()}` }, NOW);
      expect(result.applied).toBe(true);
      expect(result.entry?.deltaMs).toBe(7 * DAY_MS);
    }
    expect(await expirationOf(never.id)).toEqual({ expirationAt: NOW + 7 * DAY_MS, goodStanding: true });
    expect(await expirationOf(expired.id)).toEqual({ expirationAt: NOW + 7 * DAY_MS, goodStanding: true });
    expect(await expirationOf(active.id)).toEqual({ expirationAt: NOW + 9 * DAY_MS, goodStanding: true });
  });

  it("counts a cause once, also when applied concurrently", async () => {
    const u = await seedUser({ expirationAt: NOW + DAY_MS });
    const sourceKey = `test:${crypto.randomUUID()}`;
    const results = await Promise.all(
      Array.from({ length: 5 }, () => changeServiceTime(db, { userId: u.id, deltaMs: 7 * DAY_MS, kind: "payment", sourceKey }, NOW)),
    );
    expect(results.filter((r) => r.applied)).toHaveLength(1);
    expect(new Set(results.map((r) => r.entry?.id)).size).toBe(1);
    expect((await expirationOf(u.id))?.expirationAt).toBe(NOW + 8 * DAY_MS);
    const rows = await db.select().from(serviceTimeLedger).where(eq(serviceTimeLedger.userId, u.id));
    expect(rows).toHaveLength(1);
  });

  it("removes time down to now at most, and leaves an expired account alone", async () => {
    const active = await seedUser({ expirationAt: NOW + 3 * DAY_MS, goodStanding: true });
    const removed = await changeServiceTime(db, { userId: active.id, deltaMs: -5 * DAY_MS, kind: "refund", sourceKey: `test:${crypto.randomUUID()}` }, NOW);
    expect(removed.entry).toMatchObject({ deltaMs: -3 * DAY_MS, expirationBefore: NOW + 3 * DAY_MS, expirationAfter: NOW });
    expect(await expirationOf(active.id)).toEqual({ expirationAt: NOW, goodStanding: false });

    const expired = await seedUser({ expirationAt: NOW - DAY_MS });
    const none = await changeServiceTime(db, { userId: expired.id, deltaMs: -DAY_MS, kind: "refund", sourceKey: `test:${crypto.randomUUID()}` }, NOW);
    expect(none.entry).toMatchObject({ deltaMs: 0, expirationAfter: NOW - DAY_MS });
    expect((await expirationOf(expired.id))?.expirationAt).toBe(NOW - DAY_MS);
  });

  it("writes nothing when the guard is false", async () => {
    const u = await seedUser({ expirationAt: NOW + DAY_MS });
    const result = await changeServiceTime(
      db,
      { userId: u.id, deltaMs: DAY_MS, kind: "payment", sourceKey: `test:${crypto.randomUUID()}`, guard: sql`0` },
      NOW,
    );
    expect(result).toEqual({ applied: false, entry: undefined });
    expect((await expirationOf(u.id))?.expirationAt).toBe(NOW + DAY_MS);
  });

  it("records who adjusted and why, and lists the ledger newest first", async () => {
    const admin = await seedUser({ name: "Billing Admin" });
    const u = await seedUser({ expirationAt: NOW + DAY_MS });
    await adjustServiceTime(db, { userId: u.id, days: 3, actorId: admin.id, reason: "Outage credit" }, NOW);
    await adjustServiceTime(db, { userId: u.id, days: -1, actorId: admin.id, reason: "Correction" }, NOW + 1);
    const page = await ledgerPage(db, u.id, 1, 20);
    expect(page.total).toBe(2);
    expect(page.rows.map((r) => [r.kind, r.days, r.reason, r.actor?.name])).toEqual([
      ["adjustment", -1, "Correction", "Billing Admin"],
      ["adjustment", 3, "Outage credit", "Billing Admin"],
    ]);
    expect((await expirationOf(u.id))?.expirationAt).toBe(NOW + 3 * DAY_MS);
  });
});
