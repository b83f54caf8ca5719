import { env } from "cloudflare:test";
import { and, eq, ne } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import type { SkipReason } from "../../shared/accept-plan";
import { auditLog, driverFilters, users } from "../db/schema";
import { captureSessionOf } from "../platform/capture";
import { connectedDriver } from "../test/connected-driver";
import { recordInHistory } from "../test/engine-fixtures";
import { call, db, json, seedAdmin, signIn, signInAdmin } from "../test/fixtures";

/** /api/admin/users/:id/dashboard/*: a driver's dashboard seen by an administrator ("acting for"). */

const HOUR = 3_600_000;
const running: number[] = [];
afterEach(async () => {
  for (const id of running.splice(0)) await captureSessionOf(env, id).stop(id);
});

async function supportToken() {
  const admin = await seedAdmin({ roleName: "support", roleProperties: { billingDetails: false } });
  return { admin, token: (await signInAdmin(admin)).idToken };
}

const withoutNow = (body: Record<string, unknown>) => {
  const { now: _now, ...rest } = body;
  return rest;
};

async function seedOffers(userId: number, n: number, status: "won" | "disliked" | "gone" = "disliked") {
  const base = Date.UTC(2026, 5, 1, 14);
  const rows = Array.from({ length: n }, (_, i) => ({
    app: "flex" as const,
    platformOfferId: `admin-view-${userId}-${status}-${i}`,
    stationId: "S1",
    stationName: "Station One",
    timeZone: "America/New_York",
    status,
    reasons: status === "disliked" ? (["pay"] as SkipReason[]) : null,
    payCents: 5000 + i,
    startsAt: base + i * HOUR,
    endsAt: base + (i + 2) * HOUR,
    seenAt: base - HOUR + i,
  }));
  await recordInHistory(userId, rows);
}

describe("an administrator viewing a driver's dashboard", () => {
  it("answers what the driver's own routes answer: the engine, the service, the offers page", async () => {
    const d = await connectedDriver();
    await seedOffers(d.user.id, 3);
    await seedOffers(d.user.id, 1, "won");
    const driverToken = (await signIn(d.user)).idToken;
    const { token } = await supportToken();

    const mine = await json(await call("/api/driver/engine", { token: driverToken }));
    const seen = await json(await call(`/api/admin/users/${d.user.id}/dashboard/engine`, { token }));
    expect(withoutNow(seen)).toEqual(withoutNow(mine));
    expect(seen).toMatchObject({ engine: { state: "stopped" }, service: { goodStanding: true } });

    for (const query of ["", "?status=disliked&pageSize=20", "?page=2&pageSize=20"]) {
      const own = await json(await call(`/api/driver/offers${query}`, { token: driverToken }));
      const viewed = await json(await call(`/api/admin/users/${d.user.id}/dashboard/offers${query}`, { token }));
      expect(viewed, query).toEqual(own);
    }
    const page = await json(await call(`/api/admin/users/${d.user.id}/dashboard/offers?status=disliked`, { token }));
    expect(page).toMatchObject({ total: 3, counts: { won: 1, disliked: 3, gone: 0 } });
    expect(page.rows.map((r: { payCents: number }) => r.payCents)).toEqual([5002, 5001, 5000]);
  });

  it("pages the offers (at most the page size) and refuses a page size outside the list", async () => {
    const d = await connectedDriver();
    await seedOffers(d.user.id, 25);
    const { token } = await supportToken();
    const first = await json(await call(`/api/admin/users/${d.user.id}/dashboard/offers?pageSize=20`, { token }));
    expect(first).toMatchObject({ total: 25, page: 1, pageSize: 20 });
    expect(first.rows).toHaveLength(20);
    const second = await json(await call(`/api/admin/users/${d.user.id}/dashboard/offers?pageSize=20&page=2`, { token }));
    expect(second.rows).toHaveLength(5);
    expect((await call(`/api/admin/users/${d.user.id}/dashboard/offers?pageSize=5000`, { token })).status).toBe(400);
  });

  it("an administrator's account or a missing one has no dashboard: 404", async () => {
    const { admin, token } = await supportToken();
    expect((await call(`/api/admin/users/${admin.id}/dashboard/engine`, { token })).status).toBe(404);
    expect((await call(`/api/admin/users/${admin.id}/dashboard/offers`, { token })).status).toBe(404);
    expect((await call("/api/admin/users/987654321/dashboard/engine", { token })).status).toBe(404);
    expect((await call(`/api/admin/users/${admin.id}/dashboard/engine`, { token, body: { on: true, reason: "testing" } })).status).toBe(404);
  });
});

describe("switching a driver's system for support", () => {
  const entries = (adminId: number, userId: number) =>
    db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.actorId, adminId), eq(auditLog.action, "admin.system_changed"), eq(auditLog.target, `user:${userId}`)));

  it("a support administrator turns it on and off with a reason; each switch is audited", async () => {
    const d = await connectedDriver();
    running.push(d.user.id);
    const { admin, token } = await supportToken();

    const on = await call(`/api/admin/users/${d.user.id}/dashboard/engine`, { token, body: { on: true, reason: "Driver asked by phone" } });
    expect(on.status).toBe(200);
    expect((await json(on)).engine).toMatchObject({ state: "searching", stations: 1 });
    expect((await db.select().from(users).where(eq(users.id, d.user.id)).get())?.status).toBe("start");

    const off = await call(`/api/admin/users/${d.user.id}/dashboard/engine`, { token, body: { on: false, reason: "Driver is sick today" } });
    expect((await json(off)).engine).toEqual({ state: "stopped", reason: "driver" });

    const audit = await entries(admin.id, d.user.id);
    expect(audit.map((a) => a.details)).toEqual([
      { on: true, reason: "Driver asked by phone", before: "stop", state: "searching" },
      { on: false, reason: "Driver is sick today", before: "start", state: "stopped" },
    ]);
  });

  it("needs a reason, and says why the system cannot start, writing nothing", async () => {
    const expired = await connectedDriver({ user: { expirationAt: Date.now() - 60_000 } });
    const { admin, token } = await supportToken();
    const path = `/api/admin/users/${expired.user.id}/dashboard/engine`;
    expect((await call(path, { token, body: { on: true } })).status).toBe(400);
    expect((await call(path, { token, body: { on: true, reason: "  " } })).status).toBe(400);
    expect((await call(path, { token, body: { on: "yes", reason: "Because" } })).status).toBe(400);
    const refused = await call(path, { token, body: { on: true, reason: "Driver asked" } });
    expect(refused.status).toBe(409);
    expect(await json(refused)).toMatchObject({ error: { details: { reason: "expired" } } });
    expect(await entries(admin.id, expired.user.id)).toEqual([]);
  });

  it("drivers cannot use it, even on themselves", async () => {
    const d = await connectedDriver();
    const { idToken } = await signIn(d.user);
    expect((await call(`/api/admin/users/${d.user.id}/dashboard/engine`, { token: idToken })).status).toBe(403);
    expect((await call(`/api/admin/users/${d.user.id}/dashboard/engine`, { token: idToken, body: { on: true, reason: "Myself" } })).status).toBe(403);
  });
});

describe("opening a driver's screens, acting for them", () => {
  // Everything the administrator's requests wrote but their own sign-in.
  const auditBy = (adminId: number) =>
    db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.actorId, adminId), ne(auditLog.action, "auth.sign_in")))
      .orderBy(auditLog.id);

  it("writes one audit row per opening; the reads and polling after it write none", async () => {
    const d = await connectedDriver();
    await seedOffers(d.user.id, 2);
    const { admin, token } = await supportToken();
    const base = `/api/admin/users/${d.user.id}`;
    const opened = await call(`${base}/acting-for`, { token, body: { view: "dashboard" } });
    expect(opened.status).toBe(201);
    expect(await json(opened)).toEqual({ opened: "dashboard" });
    // The dashboard's reads, twice over (its polling), and the insights screen's.
    for (let i = 0; i < 2; i++) {
      expect((await call(`${base}/dashboard/engine`, { token })).status).toBe(200);
      expect((await call(`${base}/dashboard/offers`, { token })).status).toBe(200);
    }
    expect((await call(`${base}/acting-for`, { token, body: { view: "insights" } })).status).toBe(201);
    expect((await call(`${base}/dashboard/insights?days=7`, { token })).status).toBe(200);
    const { userId: _u, updatedAt: _t, ...filters } = (await db.select().from(driverFilters).where(eq(driverFilters.userId, d.user.id)).get())!;
    expect((await call(`${base}/dashboard/insights/what-if`, { token, body: { days: 7, filters } })).status).toBe(200);
    expect((await auditBy(admin.id)).map((a) => ({ action: a.action, target: a.target, details: a.details }))).toEqual([
      { action: "driver.dashboard_viewed", target: `user:${d.user.id}`, details: { view: "dashboard", as: "admin" } },
      { action: "driver.dashboard_viewed", target: `user:${d.user.id}`, details: { view: "insights", as: "admin" } },
    ]);
  });

  it("names a screen, and only a driver's: anything else is refused and writes nothing", async () => {
    const d = await connectedDriver();
    const { admin, token } = await supportToken();
    expect((await call(`/api/admin/users/${d.user.id}/acting-for`, { token, body: {} })).status).toBe(400);
    expect((await call(`/api/admin/users/${d.user.id}/acting-for`, { token, body: { view: "calendar" } })).status).toBe(400);
    expect((await call(`/api/admin/users/${admin.id}/acting-for`, { token, body: { view: "dashboard" } })).status).toBe(404);
    expect((await call("/api/admin/users/987654321/acting-for", { token, body: { view: "dashboard" } })).status).toBe(404);
    const { idToken } = await signIn(d.user);
    expect((await call(`/api/admin/users/${d.user.id}/acting-for`, { token: idToken, body: { view: "dashboard" } })).status).toBe(403);
    expect(await auditBy(admin.id)).toEqual([]);
  });
});
