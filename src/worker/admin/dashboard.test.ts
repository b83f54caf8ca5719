/**
 * The dashboard's figures against a fixture counted by hand. Days are New York days across the
 * start of daylight saving (Sunday 9 March 2031 has 23 hours: 05:00Z to 04:00Z), with rows on the
 * first and last millisecond of days and rows that are "today" in UTC but not in New York.
 * Everything sits in March 2031, where no other test writes; the live counts (system on,
 * disconnected) are compared before and after seeding.
 */
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { dashboardQuerySchema } from "../../shared/admin-dashboard";
import { campaignMessages, campaigns, offers, payments, users } from "../db/schema";
import { call, db, json, seedAdmin, seedUser, signInAdmin } from "../test/fixtures";
import { dashboardFigures, dashboardSeries, PAST_DAYS_TTL_MS, pruneDashboardCache } from "./dashboard";

const NY = "America/New_York";
const at = (iso: string) => Date.parse(iso);
const NOW = at("2031-03-10T15:00:00Z"); // 11:00 in New York, Monday 10 March
const query = (q: Record<string, string>) => dashboardQuerySchema.parse(q);

type Seeded = Awaited<ReturnType<typeof seedUser>>;
const u: Record<string, Seeded> = {};
let before: Awaited<ReturnType<typeof dashboardFigures>>;

beforeAll(async () => {
  before = await dashboardFigures(db, query({ timeZone: NY }), NOW);
  const driver = (createdAt: string, over: Parameters<typeof seedUser>[0] = {}) => seedUser({ password: null, createdAt: at(createdAt), ...over });
  // Created:                              New York time
  u.A = await driver("2031-03-10T03:30:00Z", { accountConnected: false, expirationAt: NOW + 86_400_000 }); // Sun 9 Mar 23:30 EDT (Mon 10 in UTC)
  u.B = await driver("2031-03-10T04:00:00Z", { status: "start", accountConnected: true, phoneVerified: false }); // Mon 10 Mar 00:00:00.000 EDT
  u.C = await driver("2031-03-09T05:00:00Z", { status: "start", accountConnected: true }); // Sun 9 Mar 00:00 EST
  u.D = await driver("2031-03-08T04:59:59.999Z", { accountConnected: false, expirationAt: NOW - 1 }); // Fri 7 Mar 23:59:59.999 EST
  u.E = await driver("2031-03-08T05:00:00Z", { accountConnected: true }); // Sat 8 Mar 00:00 EST
  u.F = await driver("2031-03-11T03:59:59.999Z", { accountConnected: false, phoneVerified: false }); // Mon 10 Mar 23:59:59.999 EDT
  u.G = await driver("2031-03-11T04:00:00Z", { accountConnected: true }); // Tue 11 Mar 00:00 EDT
  const admin = await seedAdmin({ password: null, createdAt: at("2031-03-10T12:00:00Z"), status: "start", accountConnected: false }); // never a driver

  const settled = (p: typeof payments.$inferInsert) => ({ ...p, settledAt: p.status === "processing" || p.status === "failed" ? null : p.createdAt });
  await db.insert(payments).values(
    [
      { userId: u.B!.id, amountCents: 1000, days: 7, status: "successful", createdAt: at("2031-03-10T12:00:00Z") },
      { userId: u.B!.id, amountCents: 2000, days: 14, status: "successful", createdAt: at("2031-03-10T13:00:00Z") },
      { userId: u.C!.id, amountCents: 500, days: 7, status: "successful", createdAt: at("2031-03-10T03:59:59.999Z") }, // Sun 9 Mar 23:59:59.999 EDT
      { userId: u.C!.id, amountCents: 700, days: 7, status: "failed", createdAt: at("2031-03-10T14:00:00Z") },
      { userId: u.E!.id, amountCents: 300, refundedCents: 100, days: 7, status: "refunded", createdAt: at("2031-03-08T06:00:00Z") }, // paid, then partly refunded
      { userId: u.E!.id, amountCents: 5000, days: 7, status: "processing", createdAt: at("2031-03-10T12:00:00Z") }, // never settled
      { userId: u.F!.id, amountCents: 4000, days: 28, status: "successful", createdAt: at("2031-03-10T04:00:00Z") }, // Mon 10 Mar 00:00 EDT
      { userId: u.E!.id, amountCents: 900, days: 7, status: "successful", createdAt: at("2031-03-07T12:00:00Z") }, // before the range
    ]
      .map((p) => p as typeof payments.$inferInsert)
      .map(settled),
  );
  const block = (createdAt: string) => ({
    userId: u.C!.id,
    app: "flex" as const,
    platformOfferId: `dashboard-won-${createdAt}`,
    stationId: "station-1",
    stationName: "Station 1",
    timeZone: NY,
    seenAt: at(createdAt),
    payCents: 6000,
    startsAt: at(createdAt),
    endsAt: at(createdAt) + 3_600_000,
    createdAt: at(createdAt),
  });
  await db.insert(offers).values([block("2031-03-10T20:00:00Z"), block("2031-03-09T06:00:00Z"), block("2031-03-08T04:00:00Z")]);
  const campaign = await db
    .insert(campaigns)
    .values({ app: "flex", channel: "sms", source: "list", message: "hi", audience: {}, authorId: admin.id, idempotencyKey: crypto.randomUUID() })
    .returning()
    .get();
  const message = (phone: string, status: "pending" | "sent" | "delivered" | "failed" | "skipped", updatedAt: string) => ({
    campaignId: campaign.id,
    phone,
    status,
    updatedAt: at(updatedAt),
  });
  await db
    .insert(campaignMessages)
    .values([
      message("+13055550001", "sent", "2031-03-10T15:00:00Z"),
      message("+13055550002", "delivered", "2031-03-10T04:00:01Z"),
      message("+13055550003", "failed", "2031-03-08T05:00:00Z"),
      message("+13055550004", "pending", "2031-03-10T15:00:00Z"),
      message("+13055550005", "skipped", "2031-03-10T15:00:00Z"),
      message("+13055550006", "sent", "2031-03-11T04:00:00Z"),
    ]);
});

describe("dashboard figures", () => {
  it("counts today and the range in the admin's time zone, by hand", async () => {
    const f = await dashboardFigures(db, query({ from: "2031-03-08", to: "2031-03-10", timeZone: NY }), NOW);
    expect(f).toMatchObject({ timeZone: NY, today: "2031-03-10", from: "2031-03-08", to: "2031-03-10" });
    // Today (Mon 10 Mar EDT): B (first ms) and F (last ms); not A (23:30 on the 9th) nor G (the 11th).
    expect(f.todayFigures).toEqual({ registered: 2, paidUsers: 2, payments: 3, revenueCents: 7000, blocksWon: 1, messagesSent: 2, messagesFailed: 0 });
    // 8–10 March: E, C, A, B, F; D is a millisecond early and G a day late. The failed, unsettled and earlier payments are out;
    // E's partly refunded one counts, less its refund.
    expect(f.rangeFigures).toEqual({ registered: 5, paidUsers: 4, payments: 5, revenueCents: 7700, blocksWon: 2, messagesSent: 2, messagesFailed: 1 });
  });

  it("moves the day boundaries with the zone: in UTC, A is today and F is tomorrow", async () => {
    const f = await dashboardFigures(db, query({ from: "2031-03-08", to: "2031-03-10", timeZone: "UTC" }), NOW);
    expect(f.today).toBe("2031-03-10");
    // UTC 10 March: A (03:30Z), B (04:00Z); F (03:59Z on the 11th) is not. Payments: p1, p2, C's at 03:59Z, F's at 04:00Z.
    expect(f.todayFigures).toMatchObject({ registered: 2, payments: 4, paidUsers: 3, revenueCents: 7500 });
    // UTC 8–10 March: D (04:59Z on the 8th), E, C, A, B.
    expect(f.rangeFigures.registered).toBe(5);
  });

  it("counts drivers with the system on and those disconnected, right now, leaving administrators out", async () => {
    const f = await dashboardFigures(db, query({ timeZone: NY }), NOW);
    // System on: B and C (the administrator is on too, and does not count).
    expect(f.active - before.active).toBe(2);
    expect(f.drivers - before.drivers).toBe(7);
    // Confirmed and not connected: A (service left) and D (expired); B and F have not confirmed their phone.
    expect(f.disconnected - before.disconnected).toBe(2);
    expect(f.disconnectedWithService - before.disconnectedWithService).toBe(1);
  });

  it("keeps the tallies behind those counts right through every change to an account", async () => {
    const counted = async () => {
      const [row] = await db
        .select({
          drivers: sql<number>`count(*)`,
          active: sql<number>`coalesce(sum(${users.status} = 'start'), 0)`,
          disconnected: sql<number>`coalesce(sum(${users.accountConnected} = 0 AND ${users.phoneVerified} = 1), 0)`,
        })
        .from(users)
        .where(eq(users.isAdmin, false));
      return row;
    };
    const figures = async () => {
      const f = await dashboardFigures(db, query({ timeZone: NY }), NOW);
      return { drivers: f.drivers, active: f.active, disconnected: f.disconnected };
    };
    expect(await figures()).toEqual(await counted());
    const driver = await seedUser({ password: null, phoneVerified: true, accountConnected: false });
    await db.update(users).set({ status: "start", accountConnected: true }).where(eq(users.id, driver.id));
    await db.update(users).set({ name: "Renamed" }).where(eq(users.id, driver.id));
    const promoted = await seedUser({ password: null, phoneVerified: false });
    await db.update(users).set({ isAdmin: true, app: "spark" }).where(eq(users.id, promoted.id));
    expect(await figures()).toEqual(await counted());
    await db.delete(users).where(eq(users.id, driver.id));
    expect(await figures()).toEqual(await counted());
  });

  it("counts a driver once per span through the payer chain, whatever order their payments settle in", async () => {
    const driver = await seedUser({ password: null, createdAt: at("2031-05-01T12:00:00Z") });
    const pay = (settled: string) => ({
      userId: driver.id,
      amountCents: 100,
      days: 7,
      status: "successful" as const,
      settledAt: at(settled),
      createdAt: at(settled),
    });
    // Settled out of order: the 3rd of May first, then the 1st, then a processing one settles on the 2nd.
    await db.insert(payments).values(pay("2031-05-03T12:00:00Z"));
    await db.insert(payments).values(pay("2031-05-01T12:00:00Z"));
    const late = await db
      .insert(payments)
      .values({ ...pay("2031-05-02T12:00:00Z"), status: "processing", settledAt: null })
      .returning()
      .get();
    await db
      .update(payments)
      .set({ status: "successful", settledAt: at("2031-05-02T12:00:00Z") })
      .where(eq(payments.id, late.id));
    const figures = async (from: string, to: string) =>
      (await dashboardFigures(db, query({ from, to, timeZone: "UTC" }), at("2031-05-04T00:00:00Z"))).rangeFigures;
    expect(await figures("2031-05-01", "2031-05-03")).toMatchObject({ paidUsers: 1, payments: 3 });
    expect(await figures("2031-05-02", "2031-05-03")).toMatchObject({ paidUsers: 1, payments: 2 });
    expect(await figures("2031-05-03", "2031-05-03")).toMatchObject({ paidUsers: 1, payments: 1 });
    const chain = await db
      .select({ settled: payments.settledAt, prev: payments.prevSettledAt })
      .from(payments)
      .where(eq(payments.userId, driver.id))
      .orderBy(payments.settledAt);
    expect(chain).toEqual([
      { settled: at("2031-05-01T12:00:00Z"), prev: null },
      { settled: at("2031-05-02T12:00:00Z"), prev: at("2031-05-01T12:00:00Z") },
      { settled: at("2031-05-03T12:00:00Z"), prev: at("2031-05-02T12:00:00Z") },
    ]);
  });

  it("keeps the past days' figures for a while and counts today live", async () => {
    const driver = await seedUser({ password: null, createdAt: at("2031-07-01T12:00:00Z") });
    const pay = (settled: string) => ({
      userId: driver.id,
      amountCents: 1000,
      days: 7,
      status: "successful" as const,
      settledAt: at(settled),
      createdAt: at(settled),
    });
    const now = at("2031-07-10T12:00:00Z");
    const q = query({ from: "2031-07-08", to: "2031-07-10", timeZone: "UTC" });
    await db.insert(payments).values(pay("2031-07-08T12:00:00Z"));
    expect((await dashboardFigures(db, q, now)).rangeFigures).toMatchObject({ payments: 1, paidUsers: 1, revenueCents: 1000 });
    // A late change to a past day waits for the kept figures to expire; today's counts at once.
    await db.insert(payments).values(pay("2031-07-09T12:00:00Z"));
    await db.insert(payments).values(pay("2031-07-10T09:00:00Z"));
    const soon = await dashboardFigures(db, q, now + 1000);
    expect(soon.rangeFigures).toMatchObject({ payments: 2, paidUsers: 1, revenueCents: 2000 });
    expect(soon.todayFigures).toMatchObject({ payments: 1, paidUsers: 1 });
    const later = await dashboardFigures(db, q, now + PAST_DAYS_TTL_MS + 1);
    expect(later.rangeFigures).toMatchObject({ payments: 3, paidUsers: 1, revenueCents: 3000 });
    const series = await dashboardSeries(db, q, now + PAST_DAYS_TTL_MS + 1);
    expect(series.payments).toEqual([1, 1, 1]);
    await pruneDashboardCache(db, now + 2 * PAST_DAYS_TTL_MS + 2);
  });

  it("defaults to the 30 days ending today in the zone", async () => {
    const f = await dashboardFigures(db, query({ timeZone: NY }), NOW);
    expect(f).toMatchObject({ from: "2031-02-09", to: "2031-03-10", today: "2031-03-10" });
  });
});

describe("dashboard series", () => {
  it("gives one value per New York day, the short day of 9 March included", async () => {
    const s = await dashboardSeries(db, query({ from: "2031-03-07", to: "2031-03-11", timeZone: NY }), NOW);
    expect(s.days).toEqual(["2031-03-07", "2031-03-08", "2031-03-09", "2031-03-10", "2031-03-11"]);
    expect(s.signups).toEqual([1, 1, 2, 2, 1]);
    expect(s.payments).toEqual([1, 1, 1, 3, 0]);
    expect(s.revenueCents).toEqual([900, 200, 500, 7000, 0]);
    expect(s.blocksWon).toEqual([1, 0, 1, 1, 0]);
    expect(s.messagesSent).toEqual([0, 0, 0, 2, 1]);
    expect(s.messagesFailed).toEqual([0, 1, 0, 0, 0]);
  });

  it("agrees with the figures over the same range", async () => {
    const q = query({ from: "2031-03-08", to: "2031-03-10", timeZone: NY });
    const [f, s] = [await dashboardFigures(db, q, NOW), await dashboardSeries(db, q, NOW)];
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    expect(sum(s.signups)).toBe(f.rangeFigures.registered);
    expect(sum(s.payments)).toBe(f.rangeFigures.payments);
    expect(sum(s.revenueCents)).toBe(f.rangeFigures.revenueCents);
    expect(sum(s.blocksWon)).toBe(f.rangeFigures.blocksWon);
    expect(sum(s.messagesSent)).toBe(f.rangeFigures.messagesSent);
  });
});

describe("GET /api/admin/dashboard", () => {
  it("answers the figures and the series to an administrator, and refuses bad ranges", async () => {
    const token = (await signInAdmin(await seedAdmin({ roleName: "support", roleProperties: { billingDetails: false } }))).idToken;
    const figures = await call("/api/admin/dashboard?from=2031-03-08&to=2031-03-10&timeZone=America/New_York", { token });
    expect(figures.status).toBe(200);
    expect((await json(figures)).rangeFigures.registered).toBeGreaterThanOrEqual(5);
    const series = await json(await call("/api/admin/dashboard/series?from=2031-03-08&to=2031-03-10&timeZone=America/New_York", { token }));
    expect(series.days).toHaveLength(3);
    for (const bad of ["from=2031-03-10&to=2031-03-08", "from=2030-01-01&to=2031-03-08", "timeZone=Mars/Olympus", "from=2031-02-30"]) {
      const res = await call(`/api/admin/dashboard/series?${bad}`, { token });
      expect(res.status, bad).toBe(400);
      expect((await json(res)).error.code).toBe("validation_failed");
    }
  });
});
