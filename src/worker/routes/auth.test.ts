import { and, desc, eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PBKDF2_ITERATIONS } from "../auth/password";
import { auditLog, rateLimits, users, verificationCodes } from "../db/schema";
import { call, db, json, PASSWORD, seedUser, signIn, typed, uniqueAddress, uniquePhone } from "../test/fixtures";
import { registerAndGetCode, userByPhone } from "../test/identity-fixtures";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("POST /api/auth/sign-in (password)", () => {
  it("signs in with the phone as typed and answers an ID token with the claims the SPA routes on", async () => {
    const user = await seedUser();
    const res = await call("/api/auth/sign-in", { body: { phoneNumber: typed(user.phone), app: "flex", password: PASSWORD } });
    expect(res.status).toBe(200);
    const { tokens } = await json(res);
    expect(tokens.expiresIn).toBe(3600);
    expect(tokens.refreshToken).toMatch(/^[\w-]{43}$/);
    const claims = decodeJwt(tokens.idToken);
    expect(claims).toMatchObject({
      sub: String(user.id),
      phone_number: user.phone,
      phone_number_verified: true,
      app: "flex",
      is_admin: false,
      iss: "blockpilot",
      aud: "blockpilot-app",
    });
    expect(claims.exp! - claims.iat!).toBe(3600);

    const row = await db.query.users.findFirst({ where: eq(users.id, user.id) });
    expect(row!.lastSignInAt).toBeGreaterThan(Date.now() - 60_000);
    const audit = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.actorId, user.id), eq(auditLog.action, "auth.sign_in")))
      .get();
    expect(audit?.details).toMatchObject({ method: "password", challenges: [] });
  });

  it("gives an unconfirmed phone nothing but the confirm flow: 403 after the right password, 401 after a wrong one", async () => {
    const phone = uniquePhone();
    await registerAndGetCode(phone);
    const right = await call("/api/auth/sign-in", { body: { phoneNumber: phone, app: "flex", password: PASSWORD } });
    expect(right.status).toBe(403);
    expect(await json(right)).toEqual({ error: { code: "forbidden", message: "Confirm account to continue", details: { reason: "unconfirmed" } } });
    expect((await call("/api/auth/sign-in", { body: { phoneNumber: phone, app: "flex", password: "Wrong#Pass1" } })).status).toBe(401);
  });

  it("answers a wrong password and an unknown phone with the same 401", async () => {
    const user = await seedUser();
    const wrong = await call("/api/auth/sign-in", { body: { phoneNumber: user.phone, app: "flex", password: "Wrong#Pass1" } });
    const unknown = await call("/api/auth/sign-in", { body: { phoneNumber: uniquePhone(), app: "flex", password: PASSWORD } });
    const otherApp = await call("/api/auth/sign-in", { body: { phoneNumber: user.phone, app: "spark", password: PASSWORD } });
    const passwordless = await seedUser({ password: null });
    const noPassword = await call("/api/auth/sign-in", { body: { phoneNumber: passwordless.phone, app: "flex", password: PASSWORD } });
    const expected = { error: { code: "unauthorized", message: "Phone number or password incorrect" } };
    for (const res of [wrong, unknown, otherApp, noPassword]) {
      expect(res.status).toBe(401);
      expect(await json(res)).toEqual(expected);
    }
  });

  // Response time must not tell whether an account exists: an unknown phone costs the same PBKDF2
  // work as a wrong password. The work is counted here; bench:password times it.
  it("does the same PBKDF2 work for an unknown phone as for a wrong password", async () => {
    const known = await seedUser();
    const passwordless = await seedUser({ password: null });
    const deriveBits = vi.spyOn(crypto.subtle, "deriveBits");
    const iterationsFor = async (phone: string) => {
      deriveBits.mockClear();
      await call("/api/auth/sign-in", { body: { phoneNumber: phone, app: "flex", password: "Wrong#Pass1" } });
      return deriveBits.mock.calls.map(([params]) => (params as { iterations?: number }).iterations);
    };
    const wrong = await iterationsFor(known.phone);
    expect(wrong).toEqual([PBKDF2_ITERATIONS]);
    expect(await iterationsFor(uniquePhone())).toEqual(wrong);
    expect(await iterationsFor(passwordless.phone)).toEqual(wrong);
  });

  it("limits attempts per phone and client (10 per 15 minutes), even with the right password after; another client is not held", async () => {
    const user = await seedUser();
    const address = uniqueAddress();
    for (let i = 0; i < 10; i++) {
      expect((await call("/api/auth/sign-in", { body: { phoneNumber: user.phone, app: "flex", password: "Wrong#Pass1" }, address })).status).toBe(401);
    }
    const blocked = await call("/api/auth/sign-in", { body: { phoneNumber: user.phone, app: "flex", password: PASSWORD }, address });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("Retry-After"))).toBeGreaterThan(800);
    expect((await call("/api/auth/sign-in", { body: { phoneNumber: user.phone, app: "flex", password: PASSWORD } })).status).toBe(200);

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 15 * 60_000 + 1000);
    expect((await call("/api/auth/sign-in", { body: { phoneNumber: user.phone, app: "flex", password: PASSWORD }, address })).status).toBe(200);
  });

  it("limits attempts per client address (50 per 15 minutes) across phones", async () => {
    const address = uniqueAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 51; i++) {
      statuses.push((await call("/api/auth/sign-in", { body: { phoneNumber: uniquePhone(), app: "flex", password: "Wrong#Pass1" }, address })).status);
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(50);
    expect(statuses[50]).toBe(429);
    // The refused attempt is not counted (auth-sms-fraud.test.ts: refusals write nothing).
    const row = await db
      .select()
      .from(rateLimits)
      .where(eq(rateLimits.key, `signInPerAddress:${address}`))
      .get();
    expect(row?.count).toBe(50);
  });

  it("refuses a body that mixes password and SMS sign-in", async () => {
    const res = await call("/api/auth/sign-in", { body: { phoneNumber: uniquePhone(), app: "flex", password: "x", method: "sms" } });
    expect(res.status).toBe(400);
  });
});

describe("PATCH /api/auth/me", () => {
  it("updates name, email and language and answers the user item", async () => {
    const user = await seedUser({ email: "old@example.com" });
    const { idToken } = await signIn(user);
    const res = await call("/api/auth/me", { method: "PATCH", body: { name: "  Renamed  ", email: "new@example.com", language: "es" }, token: idToken });
    expect(res.status).toBe(200);
    expect((await json(res)).Item).toMatchObject({ id: user.id, name: "Renamed", email: "new@example.com", language: "es", phoneNumber: user.phone });
    const cleared = await call("/api/auth/me", { method: "PATCH", body: { email: "" }, token: idToken });
    const { Item } = await json(cleared);
    expect(Item.email).toBeNull();
    // Not an old call: the old names are not answered here.
    expect(Item).not.toHaveProperty("flexEmail");
  });

  it("refuses an empty or invalid change and anonymous callers", async () => {
    const user = await seedUser();
    const { idToken } = await signIn(user);
    expect((await call("/api/auth/me", { method: "PATCH", body: {}, token: idToken })).status).toBe(400);
    expect((await call("/api/auth/me", { method: "PATCH", body: { email: "nope" }, token: idToken })).status).toBe(400);
    expect((await call("/api/auth/me", { method: "PATCH", body: { language: "de" }, token: idToken })).status).toBe(400);
    expect((await call("/api/auth/me", { method: "PATCH", body: { isAdmin: true, name: "x" }, token: idToken })).status).toBe(200);
    expect((await db.query.users.findFirst({ where: eq(users.id, user.id) }))!.isAdmin).toBe(false);
    expect((await call("/api/auth/me", { method: "PATCH", body: { name: "x" } })).status).toBe(401);
  });
});

// Keep an eye on what a test leaves behind: codes are never stored in clear.
describe("stored secrets", () => {
  it("never stores a code or password in clear", async () => {
    const phone = uniquePhone();
    const code = await registerAndGetCode(phone);
    const row = await db.select().from(verificationCodes).where(eq(verificationCodes.phone, phone)).orderBy(desc(verificationCodes.id)).get();
    expect(JSON.stringify(row)).not.toContain(code);
    expect(JSON.stringify(await userByPhone(phone))).not.toContain(PASSWORD);
  });
});
