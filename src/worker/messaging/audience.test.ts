import { describe, expect, it } from "vitest";
import type { DriverRow, InvitationRow } from "../../shared/audience";
import { api, createUser, invite, signInAs, uniquePhone, uniqueTag } from "../test/fixtures";

type Page<T> = { total: number; page: number; pageSize: number; rows: T[] };

async function audience(query: Record<string, string | string[]>, token: string, path = "/api/admin/audience") {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) for (const item of Array.isArray(v) ? v : [v]) qs.append(k, item);
  const res = await api(`${path}?${qs}`, { token });
  return { status: res.status, body: (await res.json()) as Page<DriverRow> & Page<InvitationRow> & { error?: { code: string; details?: unknown } } };
}

const DAY = 86_400_000;

describe("GET /api/admin/audience — permissions", () => {
  it("needs a signed-in administrator", async () => {
    expect((await api("/api/admin/audience")).status).toBe(401);
    const driver = await signInAs("driver");
    const res = await api("/api/admin/audience", { token: driver.token });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: { code: "forbidden", message: "Administrators only" } });
    const support = await signInAs("support");
    expect((await api("/api/admin/audience", { token: support.token })).status).toBe(200);
  });
});

describe("GET /api/admin/audience — filters (docs/product.md, validation)", () => {
  it("counts a start date from the start of the day and an end date to its end, in the admin's zone", async () => {
    const { token } = await signInAs("owner");
    const region = uniqueTag("Zone");
    // 2026-03-10 in New York (UTC−5, offset 300) runs from 05:00 UTC to 04:59:59.999 UTC next day.
    const start = Date.UTC(2026, 2, 10, 5);
    const end = start + DAY - 1;
    const before = await createUser({ humanRegion: region, createdAt: start - 1, name: "Before" });
    const first = await createUser({ humanRegion: region, createdAt: start, name: "First" });
    const last = await createUser({ humanRegion: region, createdAt: end, name: "Last" });
    const after = await createUser({ humanRegion: region, createdAt: end + 1, name: "After" });

    const oneDay = await audience({ region, startDate: "2026-03-10", endDate: "2026-03-10", tzOffsetMinutes: "300" }, token);
    expect(oneDay.status).toBe(200);
    expect(oneDay.body.rows.map((r) => r.id).sort()).toEqual([first.id, last.id].sort());
    expect(oneDay.body.total).toBe(2);

    const from = await audience({ region, startDate: "2026-03-10", tzOffsetMinutes: "300" }, token);
    expect(from.body.rows.map((r) => r.id).sort()).toEqual([first.id, last.id, after.id].sort());
    const until = await audience({ region, endDate: "2026-03-10", tzOffsetMinutes: "300" }, token);
    expect(until.body.rows.map((r) => r.id).sort()).toEqual([before.id, first.id, last.id].sort());
    // The same day in UTC is shifted five hours: "Before" is in, "Last" is out.
    const utc = await audience({ region, startDate: "2026-03-10", endDate: "2026-03-10" }, token);
    expect(utc.body.rows.map((r) => r.id).sort()).toEqual([before.id, first.id].sort());
  });

  it("with a zone name, gives each end of a range the offset of its own day (a range across daylight saving)", async () => {
    const { token } = await signInAs("owner");
    const region = uniqueTag("Dst");
    // New York: 2026-01-15 starts at 05:00 UTC (winter), 2026-07-15 ends at 04:00 UTC next day (summer).
    const janStart = Date.UTC(2026, 0, 15, 5);
    const julEnd = Date.UTC(2026, 6, 16, 4) - 1;
    await createUser({ humanRegion: region, createdAt: janStart - 1, name: "Early" });
    const first = await createUser({ humanRegion: region, createdAt: janStart, name: "First" });
    const last = await createUser({ humanRegion: region, createdAt: julEnd, name: "Last" });
    const late = await createUser({ humanRegion: region, createdAt: julEnd + 1, name: "Late (00:00 EDT, 16 July)" });
    const range = { region, startDate: "2026-01-15", endDate: "2026-07-15" };

    const zoned = await audience({ ...range, timeZone: "America/New_York", tzOffsetMinutes: "300" }, token);
    expect(zoned.status).toBe(200);
    expect(zoned.body.rows.map((r) => r.id).sort()).toEqual([first.id, last.id].sort());
    // One winter offset for both ends lets the first hour of 16 July in.
    const fixed = await audience({ ...range, tzOffsetMinutes: "300" }, token);
    expect(fixed.body.rows.map((r) => r.id).sort()).toEqual([first.id, last.id, late.id].sort());

    const unknown = await audience({ ...range, timeZone: "Nowhere/Special" }, token);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error?.code).toBe("validation_failed");
  });

  it("filters the expiration date the same way and leaves out drivers without one", async () => {
    const { token } = await signInAs("owner");
    const region = uniqueTag("Exp");
    const start = Date.UTC(2026, 6, 1);
    await createUser({ humanRegion: region, expirationAt: null });
    const inside = await createUser({ humanRegion: region, expirationAt: start + DAY - 1 });
    await createUser({ humanRegion: region, expirationAt: start + DAY });
    await createUser({ humanRegion: region, expirationAt: start - 1 });
    const r = await audience({ region, startExpirationDate: "2026-07-01", endExpirationDate: "2026-07-01" }, token);
    expect(r.body.rows.map((x) => x.id)).toEqual([inside.id]);
    expect((await audience({ region }, token)).body.total).toBe(4);
  });

  it("matches any selected region and any selected referral code", async () => {
    const { token } = await signInAs("owner");
    const [a, b, c] = [uniqueTag("RegA"), uniqueTag("RegB"), uniqueTag("RegC")];
    const [r1, r2] = [uniqueTag("REF1"), uniqueTag("REF2")];
    const ua = await createUser({ humanRegion: a, referralCode: r1 });
    const ub = await createUser({ humanRegion: b, referralCode: r2 });
    await createUser({ humanRegion: c, referralCode: r1 });
    expect((await audience({ region: [a, b] }, token)).body.rows.map((r) => r.id).sort()).toEqual([ua.id, ub.id].sort());
    expect((await audience({ region: [a, b, c], referral: r2 }, token)).body.rows.map((r) => r.id)).toEqual([ub.id]);
    expect((await audience({ region: [a, b, c], referral: [r1, r2] }, token)).body.total).toBe(3);
  });

  it("applies yes/no to the booleans, judging good standing by the expiration like the user call", async () => {
    const { token } = await signInAs("owner");
    const region = uniqueTag("Bool");
    const now = Date.now();
    const paid = await createUser({ humanRegion: region, goodStanding: true, expirationAt: now + 5 * DAY, accountConnected: true, setupComplete: true });
    // The flag is still set but the paid week has run out: not in good standing.
    const lapsed = await createUser({ humanRegion: region, goodStanding: true, expirationAt: now - 1000, accountConnected: true });
    const never = await createUser({ humanRegion: region, goodStanding: false });
    const yes = await audience({ region, goodStanding: "yes" }, token);
    expect(yes.body.rows.map((r) => r.id)).toEqual([paid.id]);
    expect(yes.body.rows[0]!.goodStanding).toBe(true);
    const no = await audience({ region, goodStanding: "no" }, token);
    expect(no.body.rows.map((r) => r.id).sort()).toEqual([lapsed.id, never.id].sort());
    expect(no.body.rows.every((r) => r.goodStanding === false)).toBe(true);
    expect((await audience({ region, accountConnected: "yes" }, token)).body.rows.map((r) => r.id).sort()).toEqual([paid.id, lapsed.id].sort());
    expect((await audience({ region, accountConnected: "no" }, token)).body.rows.map((r) => r.id)).toEqual([never.id]);
    expect((await audience({ region, setupComplete: "yes", accountConnected: "yes" }, token)).body.rows.map((r) => r.id)).toEqual([paid.id]);
    expect((await audience({ region, goodStanding: "all" }, token)).body.total).toBe(3);
  });

  it("lists drivers of the chosen app only, never administrators", async () => {
    const { token } = await signInAs("owner");
    const area = uniqueTag("Area");
    const spark = await createUser({ app: "spark", deliveryArea: area });
    await createUser({ app: "flex", humanRegion: area });
    await createUser({ app: "spark", deliveryArea: area, isAdmin: true, roleName: "support" });
    const r = await audience({ app: "spark", region: area }, token);
    expect(r.body.rows.map((x) => x.id)).toEqual([spark.id]);
    expect(r.body.rows[0]).toMatchObject({ deliveryArea: area, region: null });
  });

  it("answers the product's columns", async () => {
    const { token } = await signInAs("owner");
    const region = uniqueTag("Cols");
    const u = await createUser({
      humanRegion: region,
      name: "Ana López",
      referralCode: "COLS",
      goodStanding: true,
      expirationAt: Date.now() + DAY,
      accountConnected: true,
      setupComplete: false,
      status: "start",
      stripeExpressId: "acct_1",
    });
    const r = await audience({ region }, token);
    expect(r.body.rows[0]).toEqual({
      id: u.id,
      name: "Ana López",
      phone: u.phone,
      referral: "COLS",
      region,
      deliveryArea: null,
      goodStanding: true,
      accountConnected: true,
      setupComplete: false,
      expirationAt: expect.any(Number),
      status: "start",
      stripeExpressId: "acct_1",
    });
  });
});

describe("GET /api/admin/audience — search (docs/product.md, validation)", () => {
  it("reads 10, 11 (leading 1) and 12 (leading 01) digits as the phone", async () => {
    const { token } = await signInAs("owner");
    const region = uniqueTag("Srch");
    const phone = uniquePhone();
    const target = await createUser({ humanRegion: region, phone });
    await createUser({ humanRegion: region });
    const ten = phone.slice(2);
    for (const search of [ten, `1${ten}`, `01${ten}`]) {
      const r = await audience({ region, search }, token);
      expect(
        r.body.rows.map((x) => x.id),
        search,
      ).toEqual([target.id]);
    }
    // Nine digits that are not a number's end match nothing.
    expect((await audience({ region, search: ten.slice(0, 9) }, token)).body.total).toBe(0);
  });

  it("finds a number as the table shows it, in E.164, dashed, and by its last 4 or more digits", async () => {
    const { token } = await signInAs("owner");
    // No digits in the region or the names, so only the numbers and "Code NNNN" hold digits.
    const region = uniqueTag("Fmt").replace(/[0-9]/g, (d) => "ghijklmnop"[Number(d)]!);
    const phone = uniquePhone();
    const target = await createUser({ humanRegion: region, phone, name: "Target" });
    const other = await createUser({ humanRegion: region, name: `Code ${phone.slice(-4)}` });
    const [area, exchange, line] = [phone.slice(2, 5), phone.slice(5, 8), phone.slice(8)];
    const ids = async (search: string) => (await audience({ region, search }, token)).body.rows.map((x) => x.id).sort();
    for (const search of [`+1 (${area}) ${exchange}-${line}`, phone, `${area}-${exchange}-${line}`, `${exchange}-${line}`, phone.slice(-7), phone.slice(-9)]) {
      expect(await ids(search), search).toEqual([target.id]);
    }
    // The last 4 digits: the number that ends with them, and the name that holds them.
    expect(await ids(line)).toEqual([target.id, other.id].sort());
    // Three digits are too few to be a number's end: text only.
    expect(await ids(line.slice(-3))).toEqual([other.id]);
  });

  it("ignores accents and case both ways: garcia finds García, GARCÍA finds Garcia", async () => {
    const { token } = await signInAs("owner");
    const region = uniqueTag("Acc");
    const garcia = await createUser({ humanRegion: region, name: "María García" });
    const plain = await createUser({ humanRegion: region, name: "Ines Garcia" });
    const nunez = await createUser({ humanRegion: region, name: "Ñúñez", referralCode: "PEÑA" });
    const ids = async (search: string) => (await audience({ region, search }, token)).body.rows.map((x) => x.id).sort();
    expect(await ids("garcia")).toEqual([garcia.id, plain.id].sort());
    expect(await ids("GARCÍA")).toEqual([garcia.id, plain.id].sort());
    expect(await ids("maria garcia")).toEqual([garcia.id]);
    expect(await ids("nunez")).toEqual([nunez.id]);
    expect(await ids("pena")).toEqual([nunez.id]);
  });

  it("matches name, region or referral as text, ignoring case and accents", async () => {
    const { token } = await signInAs("owner");
    const region = uniqueTag("Txt");
    const jose = await createUser({ humanRegion: region, name: "JOSÉ ÑÚÑEZ" });
    const maria = await createUser({ humanRegion: region, name: "maría", referralCode: "FLEXPRO" });
    const both = await createUser({ humanRegion: region, name: "Someone", referralCode: "xjosé" });
    const ids = async (search: string) => (await audience({ region, search }, token)).body.rows.map((x) => x.id).sort();
    expect(await ids("josé")).toEqual([jose.id, both.id].sort());
    expect(await ids("ÑúÑ")).toEqual([jose.id]);
    expect(await ids("MARÍA")).toEqual([maria.id]);
    expect(await ids("flexpro")).toEqual([maria.id]);
    expect(await ids(region.toUpperCase())).toHaveLength(3);
    // Search terms are data, not patterns.
    expect(await ids("%")).toEqual([]);
    expect(await ids("_")).toEqual([]);
  });
});

describe("GET /api/admin/audience — sorting and paging", () => {
  it("pages with an exact total and sorts by the chosen column, ties broken by id", async () => {
    const { token } = await signInAs("owner");
    const region = uniqueTag("Page");
    const made: { id: number; name: string }[] = [];
    for (let i = 0; i < 45; i++) made.push(await createUser({ humanRegion: region, name: `N${String(i).padStart(2, "0")}` }));
    const p1 = await audience({ region, sort: "name", dir: "asc", pageSize: "20" }, token);
    const p3 = await audience({ region, sort: "name", dir: "asc", pageSize: "20", page: "3" }, token);
    expect(p1.body).toMatchObject({ total: 45, page: 1, pageSize: 20 });
    expect(p1.body.rows.map((r) => r.name)).toEqual(made.slice(0, 20).map((u) => u.name));
    expect(p3.body.rows.map((r) => r.name)).toEqual(made.slice(40).map((u) => u.name));
    const beyond = await audience({ region, page: "9" }, token);
    expect(beyond.body).toMatchObject({ total: 45, page: 9, rows: [] });
    const desc = await audience({ region, sort: "name", dir: "desc", pageSize: "40" }, token);
    expect(desc.body.rows[0]!.name).toBe("N44");
  });

  it("puts drivers without an expiration last in both directions", async () => {
    const { token } = await signInAs("owner");
    const region = uniqueTag("Nulls");
    const none = await createUser({ humanRegion: region, expirationAt: null });
    const early = await createUser({ humanRegion: region, expirationAt: 1_000 });
    const late = await createUser({ humanRegion: region, expirationAt: 2_000 });
    expect((await audience({ region, sort: "expirationAt", dir: "asc" }, token)).body.rows.map((r) => r.id)).toEqual([early.id, late.id, none.id]);
    expect((await audience({ region, sort: "expirationAt", dir: "desc" }, token)).body.rows.map((r) => r.id)).toEqual([late.id, early.id, none.id]);
  });

  it("refuses malformed queries with 400 in the envelope", async () => {
    const { token } = await signInAs("owner");
    const queries: Record<string, string>[] = [
      { pageSize: "50" },
      { page: "0" },
      { startDate: "2026-02-30" },
      { goodStanding: "maybe" },
      { sort: "password_hash" },
      { app: "uber" },
      { startDate: "2026-03-02", endDate: "2026-03-01" },
    ];
    for (const query of queries) {
      const r = await audience(query, token);
      expect(r.status, JSON.stringify(query)).toBe(400);
      expect(r.body.error?.code).toBe("validation_failed");
    }
  });
});

describe("GET /api/admin/invitation-audience", () => {
  async function invitationRows(token: string, query: Record<string, string>) {
    return audience(query, token, "/api/admin/invitation-audience");
  }

  it("lists unpaid invitations once per phone, names invitees without an account Unregistered", async () => {
    const { token } = await signInAs("owner");
    const t0 = Date.UTC(2025, 0, 2, 12);
    const day = "2025-01-02";
    const stranger = uniquePhone();
    const registered = await createUser({ name: "Reggie", accountConnected: true, setupComplete: true });
    const paidFriend = uniquePhone();
    await invite(stranger, { invitedAt: t0 });
    await invite(stranger, { invitedAt: t0 + 1000 });
    await invite(registered.phone, { invitedAt: t0 + 2000 });
    // The free week means this friend paid: every invitation of that phone is out.
    await invite(paidFriend, { invitedAt: t0, freeWeek: true });
    await invite(paidFriend, { invitedAt: t0 + 500 });

    const r = await invitationRows(token, { startDate: day, endDate: day });
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(2);
    expect(r.body.rows).toEqual([
      {
        phone: registered.phone,
        name: "Reggie",
        unregistered: false,
        invitedAt: t0 + 2000,
        accountConnected: true,
        setupComplete: true,
        userId: registered.id,
      },
      { phone: stranger, name: "Unregistered", unregistered: true, invitedAt: t0 + 1000, accountConnected: false, setupComplete: false, userId: null },
    ]);
    expect((await invitationRows(token, { startDate: day, endDate: day, registered: "no" })).body.rows.map((x) => x.phone)).toEqual([stranger]);
    expect((await invitationRows(token, { startDate: day, endDate: day, registered: "yes" })).body.rows.map((x) => x.phone)).toEqual([registered.phone]);
    expect((await invitationRows(token, { startDate: day, endDate: day, accountConnected: "no" })).body.rows.map((x) => x.phone)).toEqual([stranger]);
    expect((await invitationRows(token, { startDate: day, endDate: day, setupComplete: "yes" })).body.rows.map((x) => x.phone)).toEqual([registered.phone]);
    expect((await invitationRows(token, { startDate: day, endDate: day, search: "unregist" })).body.rows.map((x) => x.phone)).toEqual([stranger]);
    expect((await invitationRows(token, { startDate: day, endDate: day, search: stranger.slice(2) })).body.rows.map((x) => x.phone)).toEqual([stranger]);
  });

  it("bounds the invitation date by day edges", async () => {
    const { token } = await signInAs("owner");
    const start = Date.UTC(2025, 5, 1);
    const [a, b, c] = [uniquePhone(), uniquePhone(), uniquePhone()];
    await invite(a, { invitedAt: start - 1 });
    await invite(b, { invitedAt: start });
    await invite(c, { invitedAt: start + DAY - 1 });
    const r = await invitationRows(token, { startDate: "2025-06-01", endDate: "2025-06-01" });
    expect(r.body.rows.map((x) => x.phone).sort()).toEqual([b, c].sort());
  });
});

describe("GET /api/admin/regions", () => {
  it("lists the distinct regions of an app, sorted", async () => {
    const { token } = await signInAs("support");
    const tag = uniqueTag("zz");
    await createUser({ humanRegion: `${tag}-b` });
    await createUser({ humanRegion: `${tag}-a` });
    await createUser({ humanRegion: `${tag}-a` });
    await createUser({ app: "spark", deliveryArea: `${tag}-spark` });
    const flex = (await (await api("/api/admin/regions?app=flex", { token })).json()) as { Items: string[] };
    expect(flex.Items.filter((r) => r.startsWith(tag))).toEqual([`${tag}-a`, `${tag}-b`]);
    const spark = (await (await api("/api/admin/regions?app=spark", { token })).json()) as { Items: string[] };
    expect(spark.Items.filter((r) => r.startsWith(tag))).toEqual([`${tag}-spark`]);
    expect((await api("/api/admin/regions?app=lyft", { token })).status).toBe(400);
  });
});
