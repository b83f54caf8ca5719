/**
 * The users page's API (its list, its export, its total), through the real Worker. Each test
 * scopes its rows with a region name of its own, so the counts are exact whatever else the
 * database holds.
 */
import { count, desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { userListSchema } from "../../shared/admin-users";
import { auditLog, resellers, users } from "../db/schema";
import { list, ownerToken, region, startListAdmins } from "../test/admin-users";
import { call, db, seedAdmin, seedUser } from "../test/fixtures";
import { userPage, userWhere } from "./users";

const DAY = 86_400_000;

beforeAll(startListAdmins);

const names = (page: { rows: { name: string }[] }) => page.rows.map((r) => r.name);

describe("GET /api/admin/users", () => {
  it("filters by each yes/no, system, reseller and role, and counts the whole filtered set", async () => {
    const r = region();
    const now = Date.now();
    await seedUser({
      password: null,
      name: "Ana On",
      humanRegion: r,
      status: "start",
      goodStanding: true,
      expirationAt: now + DAY,
      accountConnected: true,
      setupComplete: true,
    });
    const ben = await seedUser({
      password: null,
      name: "Ben Off",
      humanRegion: r,
      status: "stop",
      goodStanding: true,
      expirationAt: now - 1,
      stripeExpressId: "acct_1",
    });
    await db.insert(resellers).values({ userId: ben.id, status: "approved", commissionBps: 2000 });
    // An applicant is not a reseller yet.
    const ana = await seedUser({ password: null, name: "Ana Applicant", humanRegion: r, status: "stop", goodStanding: false });
    await db.insert(resellers).values({ userId: ana.id, status: "applied", commissionBps: 0 });
    await seedUser({ password: null, name: "Cy Admin", humanRegion: r, isAdmin: true, roleName: "support" });
    const q = `region=${encodeURIComponent(r)}`;
    expect(names(await list(`${q}&sort=name&dir=asc`))).toEqual(["Ana Applicant", "Ana On", "Ben Off"]);
    expect(names(await list(`${q}&role=all&sort=name&dir=asc`))).toEqual(["Ana Applicant", "Ana On", "Ben Off", "Cy Admin"]);
    expect(names(await list(`${q}&role=admins`))).toEqual(["Cy Admin"]);
    // Ben's stored flag says good standing, but his paid time has run out.
    expect(names(await list(`${q}&goodStanding=yes`))).toEqual(["Ana On"]);
    expect(names(await list(`${q}&goodStanding=no&sort=name&dir=asc`))).toEqual(["Ana Applicant", "Ben Off"]);
    expect(names(await list(`${q}&system=on`))).toEqual(["Ana On"]);
    expect(names(await list(`${q}&system=off&sort=name&dir=asc`))).toEqual(["Ana Applicant", "Ben Off"]);
    expect(names(await list(`${q}&reseller=yes`))).toEqual(["Ben Off"]);
    expect(names(await list(`${q}&reseller=no&sort=name&dir=asc`))).toEqual(["Ana Applicant", "Ana On"]);
    expect(names(await list(`${q}&accountConnected=yes&setupComplete=yes`))).toEqual(["Ana On"]);
    const page = await list(`${q}&sort=name&dir=desc&pageSize=20`);
    expect(page.total).toBe(3);
    expect(page.rows[0]).toMatchObject({ name: "Ben Off", region: r, reseller: true, status: "stop", goodStanding: false, isAdmin: false });
  });

  it("takes creation and expiration days in the admin's zone, both ends included", async () => {
    const r = region();
    const at = (iso: string) => Date.parse(iso);
    // 1 July 2030, New York (EDT, UTC−4): 04:00Z to 03:59:59.999Z the next day.
    await seedUser({ password: null, name: "First ms", humanRegion: r, createdAt: at("2030-07-01T04:00:00Z"), expirationAt: at("2030-08-01T03:59:59.999Z") });
    await seedUser({ password: null, name: "Last ms", humanRegion: r, createdAt: at("2030-07-02T03:59:59.999Z"), expirationAt: at("2030-08-01T04:00:00Z") });
    await seedUser({ password: null, name: "Day before", humanRegion: r, createdAt: at("2030-07-01T03:59:59.999Z") });
    const q = `region=${encodeURIComponent(r)}&timeZone=America/New_York&sort=name&dir=asc`;
    expect(names(await list(`${q}&createdFrom=2030-07-01&createdTo=2030-07-01`))).toEqual(["First ms", "Last ms"]);
    expect(names(await list(`${q}&expiresFrom=2030-07-31&expiresTo=2030-07-31`))).toEqual(["First ms"]);
    expect(names(await list(`${q}&expiresFrom=2030-08-01`))).toEqual(["Last ms"]);
    // In UTC the day before is already 1 July.
    expect(names(await list(`region=${encodeURIComponent(r)}&timeZone=UTC&createdFrom=2030-07-01&createdTo=2030-07-01&sort=name&dir=asc`))).toEqual([
      "Day before",
      "First ms",
    ]);
  });

  it("searches by phone number and by text in any case", async () => {
    const r = region();
    const who = await seedUser({ password: null, name: "María Search", humanRegion: r });
    expect(names(await list(`search=${who.phone.slice(2)}`))).toEqual(["María Search"]);
    expect(names(await list(`search=1${who.phone.slice(2)}`))).toEqual(["María Search"]);
    expect(names(await list(`region=${encodeURIComponent(r)}&search=MARÍA`))).toEqual(["María Search"]);
    // Accents and case ignored; the last 4 to 9 digits of the number as typed.
    expect(names(await list(`region=${encodeURIComponent(r)}&search=maria`))).toEqual(["María Search"]);
    expect(names(await list(`region=${encodeURIComponent(r)}&search=${who.phone.slice(-7, -4)}-${who.phone.slice(-4)}`))).toEqual(["María Search"]);
    expect(names(await list(`region=${encodeURIComponent(r)}&search=${who.phone.slice(-4)}`))).toEqual(["María Search"]);
  });

  it("pages 20 to 100 rows and refuses other sizes and bad filters", async () => {
    const r = region();
    for (let i = 0; i < 23; i++) await seedUser({ password: null, name: `Pager ${String(i).padStart(2, "0")}`, humanRegion: r });
    const second = await list(`region=${encodeURIComponent(r)}&sort=name&dir=asc&page=2&pageSize=20`);
    expect(second.total).toBe(23);
    expect(names(second)).toEqual(["Pager 20", "Pager 21", "Pager 22"]);
    for (const bad of [
      "pageSize=10",
      "pageSize=500",
      "createdFrom=2030-02-30",
      "createdFrom=2030-02-02&createdTo=2030-02-01",
      "sort=password_hash",
      "role=god",
    ]) {
      const res = await call(`/api/admin/users?${bad}`, { token: ownerToken });
      expect(res.status, bad).toBe(400);
    }
  });
});

describe("GET /api/admin/users/export.csv", () => {
  it("streams the filtered set, every formula defused, and audits the export", async () => {
    const r = region();
    await seedUser({ password: null, name: '=HYPERLINK("http://evil","x")', humanRegion: r, email: "+1@x.co" });
    await seedUser({ password: null, name: "García, José", humanRegion: r });
    const res = await call(`/api/admin/users/export.csv?region=${encodeURIComponent(r)}`, { token: ownerToken });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="users-flex.csv"');
    const lines = (await res.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "id,app,name,phone,email,region,referral,phone_verified,good_standing,account_connected,setup_complete,system,expiration,created,last_sign_in,role,reseller",
    );
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`"'=HYPERLINK(""http://evil"",""x"")"`);
    expect(lines[1]).toContain(",'+1@x.co,");
    expect(lines[1]).toMatch(/,'\+1\d{10},/);
    expect(lines[2]).toContain('"García, José"');
    const audit = await db.select().from(auditLog).where(eq(auditLog.action, "admin.users_exported")).orderBy(desc(auditLog.id)).get();
    expect(audit?.details).toMatchObject({ filters: { region: [r], app: "flex" } });
  });
});

describe("the users page's total from the tallies", () => {
  it("is the count of the accounts the filters keep, whichever of app, role, system and connection they set", async () => {
    const driver = await seedUser({ password: null, app: "spark", phoneVerified: true });
    await db.update(users).set({ status: "start", accountConnected: true }).where(eq(users.id, driver.id));
    await seedAdmin({ app: "spark" });
    const now = Date.now();
    const shapes = [
      {},
      { app: "spark" },
      { app: "spark", role: "all" },
      { app: "spark", role: "admins" },
      { app: "spark", system: "on" },
      { app: "flex", system: "off", accountConnected: "no" },
      { app: "spark", role: "all", accountConnected: "yes", system: "on" },
    ];
    for (const shape of shapes) {
      const q = userListSchema.parse(shape);
      const [counted] = await db
        .select({ n: count() })
        .from(users)
        .where(userWhere(q, now, true));
      expect((await userPage(db, q, true, now)).total, JSON.stringify(shape)).toBe(counted!.n);
    }
  });
});
