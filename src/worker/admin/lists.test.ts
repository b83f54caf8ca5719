/** The invitations, leads and audit lists, and the cron that files drop-off leads. */
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, invitations, leads, payments } from "../db/schema";
import { call, db, json, seedAdmin, seedUser, tokenFor, uniquePhone } from "../test/fixtures";
import { DROP_OFF_AFTER_MS, fileDropOffLeads } from "./leads";

let owner: Awaited<ReturnType<typeof seedAdmin>>;
let token: string;
let support: Awaited<ReturnType<typeof seedAdmin>>;

beforeAll(async () => {
  // A real session without the password round trip (tokenFor): this file is about the lists, not sign-in.
  owner = await seedAdmin({ password: null, roleName: "owner", roleProperties: { billingDetails: true } });
  token = await tokenFor(owner);
  support = await seedAdmin({ password: null, roleName: "support", roleProperties: { billingDetails: false } });
});

const get = async (path: string) => {
  const res = await call(path, { token });
  expect(res.status, await res.clone().text()).toBe(200);
  return json(res);
};

describe("GET /api/admin/invitations", () => {
  it("shows inviter, invitee, registered, paid and free week, with filters", async () => {
    const inviter = await seedUser({ password: null, name: `Inviter ${crypto.randomUUID().slice(0, 6)}` });
    const paidFriend = await seedUser({ password: null, name: "Paid Friend" });
    const registeredFriend = await seedUser({ password: null, name: "Registered Friend" });
    const stranger = uniquePhone();
    await db.insert(payments).values({ userId: paidFriend.id, amountCents: 3999, days: 7, status: "successful" });
    await db.insert(invitations).values([
      { inviterId: inviter.id, app: "flex", phone: paidFriend.phone, invitedAt: Date.parse("2030-05-01T12:00:00Z"), freeWeek: true },
      { inviterId: inviter.id, app: "flex", phone: registeredFriend.phone, invitedAt: Date.parse("2030-05-02T12:00:00Z") },
      { inviterId: inviter.id, app: "flex", phone: stranger, invitedAt: Date.parse("2030-05-03T12:00:00Z") },
    ]);
    const q = `search=${encodeURIComponent(inviter.name)}`;
    const all = await get(`/api/admin/invitations?${q}`);
    expect(all.total).toBe(3);
    expect(all.rows.map((r: { phone: string }) => r.phone)).toEqual([stranger, registeredFriend.phone, paidFriend.phone]);
    expect(all.rows[2]).toMatchObject({
      inviterId: inviter.id,
      inviterName: inviter.name,
      inviteeId: paidFriend.id,
      inviteeName: "Paid Friend",
      paid: true,
      freeWeek: true,
    });
    expect(all.rows[0]).toMatchObject({ inviteeId: null, inviteeName: null, paid: false, freeWeek: false });
    expect((await get(`/api/admin/invitations?${q}&registered=yes`)).total).toBe(2);
    expect((await get(`/api/admin/invitations?${q}&registered=no`)).total).toBe(1);
    expect((await get(`/api/admin/invitations?${q}&paid=yes`)).total).toBe(1);
    expect((await get(`/api/admin/invitations?${q}&freeWeek=no`)).total).toBe(2);
    expect((await get(`/api/admin/invitations?inviter=${inviter.id}`)).total).toBe(3);
    expect((await get(`/api/admin/invitations?${q}&from=2030-05-02&to=2030-05-02`)).rows[0].phone).toBe(registeredFriend.phone);
    expect((await get(`/api/admin/invitations?search=${stranger.slice(2)}`)).rows.map((r: { inviterId: number }) => r.inviterId)).toEqual([inviter.id]);
    // The last digits of the invited number.
    expect((await get(`/api/admin/invitations?inviter=${inviter.id}&search=${stranger.slice(-5)}`)).rows.map((r: { phone: string }) => r.phone)).toEqual([
      stranger,
    ]);
  });
});

describe("leads", () => {
  it("files drivers whose first day ended short of paying, once, and reads their stage live", async () => {
    const now = Date.parse("2030-09-10T12:00:00Z");
    const day = (offsetHours: number) => now - DROP_OFF_AFTER_MS - offsetHours * 3600_000;
    const unconfirmed = await seedUser({ password: null, name: "Unconfirmed", phoneVerified: false, createdAt: day(1) });
    const unconnected = await seedUser({ password: null, name: "Unconnected", createdAt: day(2) });
    const unpaid = await seedUser({ password: null, name: "Unpaid", accountConnected: true, createdAt: day(3) });
    const paid = await seedUser({ password: null, name: "Paid", accountConnected: true, createdAt: day(4) });
    await db.insert(payments).values({ userId: paid.id, amountCents: 100, days: 7, status: "successful" });
    const tooNew = await seedUser({ password: null, name: "Too new", phoneVerified: false, createdAt: day(-1) });
    await seedAdmin({ password: null, createdAt: day(1), phoneVerified: false });

    expect(await fileDropOffLeads(db, now)).toBe(3);
    expect(await fileDropOffLeads(db, now)).toBe(0);
    const filed = await db.select().from(leads).where(eq(leads.source, "drop-off"));
    const filedIds = filed.map((l) => l.userId);
    expect(filedIds).toEqual(expect.arrayContaining([unconfirmed.id, unconnected.id, unpaid.id]));
    expect(filedIds).not.toContain(paid.id);
    expect(filedIds).not.toContain(tooNew.id);

    const stages = async () => {
      const page = await get(`/api/admin/leads?search=${unpaid.phone.slice(2)}`);
      return page.rows.map((r: { stage: string }) => r.stage);
    };
    expect(await stages()).toEqual(["unpaid"]);
    await db.insert(payments).values({ userId: unpaid.id, amountCents: 100, days: 7, status: "successful" });
    expect(await stages()).toEqual(["paid"]);
    expect((await get(`/api/admin/leads?stage=unconfirmed&search=${unconfirmed.phone.slice(2)}`)).total).toBe(1);
    expect((await get(`/api/admin/leads?stage=unconnected&search=${unconfirmed.phone.slice(2)}`)).total).toBe(0);
  });

  it("keeps contact-form messages with status, owner and notes; changes are audited", async () => {
    const phone = uniquePhone();
    const lead = await db.insert(leads).values({ app: "flex", phone, name: "Form Person", source: "contact", message: "How do I pay?" }).returning().get();
    const listed = await get(`/api/admin/leads?stage=contact&search=${phone.slice(2)}`);
    expect(listed.rows[0]).toMatchObject({ id: lead.id, stage: "contact", status: "new", message: "How do I pay?", ownerId: null });
    // The last digits of the number find it too.
    expect((await get(`/api/admin/leads?stage=contact&pageSize=100&search=${phone.slice(-6)}`)).rows.map((r: { id: number }) => r.id)).toContain(lead.id);

    const res = await call(`/api/admin/leads/${lead.id}`, {
      method: "PATCH",
      body: { status: "contacted", ownerId: support.id, notes: "Called, will pay Friday" },
      token,
    });
    expect(res.status).toBe(200);
    expect((await json(res)).lead).toMatchObject({ status: "contacted", ownerId: support.id, ownerName: support.name, notes: "Called, will pay Friday" });
    const audit = await db
      .select()
      .from(auditLog)
      .where(eq(auditLog.target, `lead:${lead.id}`))
      .get();
    expect(audit).toMatchObject({
      action: "admin.lead_updated",
      actorId: owner.id,
      details: { changed: { status: ["new", "contacted"], ownerId: [null, support.id] } },
    });
    expect((await get(`/api/admin/leads?owner=${support.id}&search=${phone.slice(2)}`)).total).toBe(1);
    expect((await get(`/api/admin/leads?owner=none&search=${phone.slice(2)}`)).total).toBe(0);
    expect((await get(`/api/admin/leads?status=contacted&search=${phone.slice(2)}`)).total).toBe(1);

    // The owner must be an administrator; unknown leads are 404; an empty change is refused.
    const driver = await seedUser({ password: null });
    expect((await call(`/api/admin/leads/${lead.id}`, { method: "PATCH", body: { ownerId: driver.id }, token })).status).toBe(400);
    expect((await call("/api/admin/leads/987654321", { method: "PATCH", body: { status: "lost" }, token })).status).toBe(404);
    expect((await call(`/api/admin/leads/${lead.id}`, { method: "PATCH", body: {}, token })).status).toBe(400);
    expect((await call(`/api/admin/leads/${lead.id}`, { method: "PATCH", body: { status: "won" }, token })).status).toBe(400);
  });
});

describe("GET /api/admin/audit", () => {
  it("filters by actor, action, target and day, newest first", async () => {
    const target = `user:${900_000 + Math.floor(Math.random() * 99_999)}`;
    const at = (iso: string) => Date.parse(iso);
    await db.insert(auditLog).values([
      { actorId: owner.id, action: "admin.user_updated", target, details: { n: 1 }, at: at("2030-06-01T03:59:59.999Z") },
      { actorId: support.id, action: "admin.user_updated", target, details: { n: 2 }, at: at("2030-06-01T04:00:00Z") },
      { actorId: owner.id, action: "admin.role_changed", target, details: { n: 3 }, at: at("2030-06-02T12:00:00Z") },
    ]);
    const page = await get(`/api/admin/audit?target=${target}`);
    expect(page.rows.map((r: { details: { n: number } }) => r.details.n)).toEqual([3, 2, 1]);
    expect(page.rows[0]).toMatchObject({ actorId: owner.id, actorName: owner.name, action: "admin.role_changed" });
    expect((await get(`/api/admin/audit?target=${target}&actor=${support.id}`)).total).toBe(1);
    expect((await get(`/api/admin/audit?target=${target}&action=admin.role_changed`)).total).toBe(1);
    // 1 June in New York starts at 04:00Z.
    const june1 = await get(`/api/admin/audit?target=${target}&from=2030-06-01&to=2030-06-01&timeZone=America/New_York`);
    expect(june1.rows.map((r: { details: { n: number } }) => r.details.n)).toEqual([2]);
    expect((await get("/api/admin/audit/actions")).actions).toEqual(expect.arrayContaining(["admin.role_changed", "admin.user_updated"]));
    for (const bad of ["target=users", "action=DROP TABLE", "actor=me", "from=2030-06-02&to=2030-06-01"])
      expect((await call(`/api/admin/audit?${bad}`, { token })).status, bad).toBe(400);
  });
});
