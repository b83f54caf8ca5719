import { and, desc, eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PBKDF2_ITERATIONS } from "../auth/password";
import { auditLog, outbox, rateLimits, refreshTokens, users, verificationCodes } from "../db/schema";
import { call, codeIn, db, json, lastOutboxId, nextSms, PASSWORD, seedUser, signIn, typed, uniqueAddress, uniquePhone } from "../test/fixtures";
import { expireCodes, NEW_PASSWORD, registerAndGetCode, userByPhone } from "../test/identity-fixtures";

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
    // The refused attempt is not counted (auth-security.test.ts: refusals write nothing).
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

describe("POST /api/auth/refresh", () => {
  it("rotates the refresh token and answers a fresh ID token reflecting the account now", async () => {
    const user = await seedUser();
    const first = await signIn(user);
    const newPhone = uniquePhone();
    await db.update(users).set({ phone: newPhone }).where(eq(users.id, user.id));

    const res = await call("/api/auth/refresh", { body: { refreshToken: first.refreshToken } });
    expect(res.status).toBe(200);
    const { tokens } = await json(res);
    expect(tokens.refreshToken).not.toBe(first.refreshToken);
    expect(decodeJwt(tokens.idToken).phone_number).toBe(newPhone);
    expect(tokens.expiresIn).toBe(3600);
  });

  it("revokes the family when a rotated token is presented again, and answers 401", async () => {
    const user = await seedUser();
    const first = await signIn(user);
    const second = (await json(await call("/api/auth/refresh", { body: { refreshToken: first.refreshToken } }))).tokens;
    const otherDevice = await signIn(user);

    const replay = await call("/api/auth/refresh", { body: { refreshToken: first.refreshToken } });
    expect(replay.status).toBe(401);
    expect(await json(replay)).toEqual({ error: { code: "unauthorized", message: "Session revoked. Sign in again", details: { reason: "reused" } } });
    // The legitimate holder of the newest token is signed out too…
    expect((await call("/api/auth/refresh", { body: { refreshToken: second.refreshToken } })).status).toBe(401);
    // …but not the user's other sessions.
    expect((await call("/api/auth/refresh", { body: { refreshToken: otherDevice.refreshToken } })).status).toBe(200);
  });

  it("answers 401 for unknown and expired tokens, 400 for malformed bodies", async () => {
    const user = await seedUser();
    const tokens = await signIn(user);
    await db
      .update(refreshTokens)
      .set({ expiresAt: Date.now() - 1 })
      .where(eq(refreshTokens.userId, user.id));
    expect((await call("/api/auth/refresh", { body: { refreshToken: tokens.refreshToken } })).status).toBe(401);
    expect((await call("/api/auth/refresh", { body: { refreshToken: "A".repeat(43) } })).status).toBe(401);
    expect((await call("/api/auth/refresh", { body: {} })).status).toBe(400);
    expect((await call("/api/auth/refresh", { body: { refreshToken: 42 } })).status).toBe(400);
  });
});

describe("POST /api/auth/sign-out", () => {
  it("revokes the session's refresh token", async () => {
    const user = await seedUser();
    const tokens = await signIn(user);
    const res = await call("/api/auth/sign-out", { body: { refreshToken: tokens.refreshToken } });
    expect(await json(res)).toEqual({ signedOut: true });
    expect((await call("/api/auth/refresh", { body: { refreshToken: tokens.refreshToken } })).status).toBe(401);
  });

  it("is idempotent for tokens it does not know", async () => {
    expect((await call("/api/auth/sign-out", { body: { refreshToken: "B".repeat(43) } })).status).toBe(200);
  });

  it("signs out everywhere only for a caller with a valid ID token", async () => {
    const user = await seedUser();
    const bystander = await seedUser();
    const sessions = [await signIn(user), await signIn(user), await signIn(user)];
    const theirs = await signIn(bystander);

    const anonymous = await call("/api/auth/sign-out", { body: { refreshToken: sessions[0]!.refreshToken, global: true } });
    expect(anonymous.status).toBe(401);
    expect((await call("/api/auth/refresh", { body: { refreshToken: sessions[1]!.refreshToken } })).status).toBe(200);

    const fresh = [await signIn(user), await signIn(user)];
    const res = await call("/api/auth/sign-out", { body: { refreshToken: fresh[0]!.refreshToken, global: true }, token: fresh[0]!.idToken });
    expect(res.status).toBe(200);
    for (const s of fresh) expect((await call("/api/auth/refresh", { body: { refreshToken: s.refreshToken } })).status).toBe(401);
    expect((await call("/api/auth/refresh", { body: { refreshToken: theirs.refreshToken } })).status).toBe(200);
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.actorId, user.id), eq(auditLog.action, "auth.sign_out_global"))),
    ).toHaveLength(1);
  });

  it("an ended session's ID token cannot sign its user out everywhere, as it can do nothing else", async () => {
    const user = await seedUser();
    const old = await signIn(user);
    // That session ends (signed out, or a credential change); its ID token is still within its hour.
    expect((await call("/api/auth/sign-out", { body: { refreshToken: old.refreshToken } })).status).toBe(200);
    const current = await signIn(user);
    const replay = await call("/api/auth/sign-out", { body: { refreshToken: old.refreshToken, global: true }, token: old.idToken });
    expect(replay.status).toBe(401);
    expect(await json(replay)).toMatchObject({ error: { code: "unauthorized", message: "Session ended. Sign in again" } });
    // The user's live session goes on, and no global sign-out was recorded.
    expect((await call("/api/flex/v1/user", { token: current.idToken })).status).toBe(200);
    expect((await call("/api/auth/refresh", { body: { refreshToken: current.refreshToken } })).status).toBe(200);
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.actorId, user.id), eq(auditLog.action, "auth.sign_out_global"))),
    ).toEqual([]);
  });
});

describe("POST /api/auth/forgot-password and /reset-password", () => {
  async function forgot(phone: string, address?: string) {
    return call("/api/auth/forgot-password", { body: { phoneNumber: phone, app: "flex" }, address });
  }

  it("texts a reset code; the code sets a new password, ends every session and confirms the phone", async () => {
    const user = await seedUser({ language: "es" });
    const session = await signIn(user);
    await db.update(users).set({ phoneVerified: false }).where(eq(users.id, user.id));
    const before = await lastOutboxId();
    const res = await forgot(user.phone);
    expect(res.status).toBe(200);
    const sms = await nextSms(user.phone, before);
    expect(sms.body).toMatch(/^Blockpilot: código para nueva contraseña: \d{6}/);

    const reset = await call("/api/auth/reset-password", {
      body: { phoneNumber: typed(user.phone), app: "flex", code: codeIn(sms.body), newPassword: NEW_PASSWORD },
    });
    expect(reset.status).toBe(200);
    expect(await json(reset)).toEqual({ reset: true });
    expect((await call("/api/auth/sign-in", { body: { phoneNumber: user.phone, app: "flex", password: PASSWORD } })).status).toBe(401);
    expect(await signIn({ ...user, password: NEW_PASSWORD })).toBeTruthy();
    expect((await call("/api/auth/refresh", { body: { refreshToken: session.refreshToken } })).status).toBe(401);
    expect((await userByPhone(user.phone))!.phoneVerified).toBe(true);
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.actorId, user.id), eq(auditLog.action, "auth.password_reset"))),
    ).toHaveLength(1);
  });

  it("answers an unknown phone exactly as a known one, doing the same work, texting nobody", async () => {
    const known = await seedUser();
    const unknown = uniquePhone();
    const before = await lastOutboxId();
    const a = await forgot(known.phone);
    const b = await forgot(unknown);
    expect(a.status).toBe(b.status);
    const strip = (res: Response) => [...res.headers.entries()].filter(([name]) => name !== "x-request-id").sort();
    expect(strip(a)).toEqual(strip(b));
    const bodyA = await json(a);
    const bodyB = await json(b);
    expect(Object.keys(bodyA.codeDelivery)).toEqual(Object.keys(bodyB.codeDelivery));
    expect(bodyB).toEqual({ codeDelivery: { destination: `•••${unknown.slice(-4)}` } });
    // Both stored a code (same database work); only the real account got an SMS.
    for (const phone of [known.phone, unknown]) {
      expect(
        await db
          .select()
          .from(verificationCodes)
          .where(and(eq(verificationCodes.phone, phone), eq(verificationCodes.purpose, "reset"))),
      ).toHaveLength(1);
    }
    await nextSms(known.phone, before);
    expect(await db.select().from(outbox).where(eq(outbox.to, unknown))).toHaveLength(0);
    // And the throttle treats both alike.
    const againA = await forgot(known.phone);
    const againB = await forgot(unknown);
    expect([againA.status, againB.status]).toEqual([429, 429]);
    expect((await json(againA)).error).toEqual((await json(againB)).error);
  });

  it("refuses a wrong, expired or reused reset code and keeps the old password", async () => {
    const user = await seedUser();
    const before = await lastOutboxId();
    await forgot(user.phone);
    const code = codeIn((await nextSms(user.phone, before)).body);
    const body = (c: string) => ({ body: { phoneNumber: user.phone, app: "flex", code: c, newPassword: NEW_PASSWORD } });
    const wrong = await call("/api/auth/reset-password", body(code === "000000" ? "111111" : "000000"));
    expect(wrong.status).toBe(400);
    await expireCodes(user.phone);
    expect((await json(await call("/api/auth/reset-password", body(code)))).error.details.reason).toBe("expired");
    expect(await signIn(user)).toBeTruthy();

    await db
      .update(verificationCodes)
      .set({ expiresAt: Date.now() + 600_000 })
      .where(eq(verificationCodes.phone, user.phone));
    expect((await call("/api/auth/reset-password", body(code))).status).toBe(200);
    expect(
      (await json(await call("/api/auth/reset-password", { body: { phoneNumber: user.phone, app: "flex", code, newPassword: "Other#Pass9" } }))).error.details
        .reason,
    ).toBe("used");
  });

  it("refuses a weak new password before touching the code", async () => {
    const user = await seedUser();
    const before = await lastOutboxId();
    await forgot(user.phone);
    const code = codeIn((await nextSms(user.phone, before)).body);
    const weak = await call("/api/auth/reset-password", { body: { phoneNumber: user.phone, app: "flex", code, newPassword: "weak" } });
    expect(weak.status).toBe(400);
    expect((await call("/api/auth/reset-password", { body: { phoneNumber: user.phone, app: "flex", code, newPassword: NEW_PASSWORD } })).status).toBe(200);
  });

  it("rate-limits forgot-password per client address", async () => {
    const address = uniqueAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await forgot(uniquePhone(), address)).status);
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(statuses[30]).toBe(429);
  });
});

describe("POST /api/auth/change-password", () => {
  it("needs a signed-in caller", async () => {
    expect((await call("/api/auth/change-password", { body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD } })).status).toBe(401);
  });

  it("changes the password when the current one is right", async () => {
    const user = await seedUser();
    const { idToken } = await signIn(user);
    const res = await call("/api/auth/change-password", { body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, token: idToken });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ changed: true });
    expect(await signIn({ ...user, password: NEW_PASSWORD })).toBeTruthy();
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.actorId, user.id), eq(auditLog.action, "auth.password_changed"))),
    ).toHaveLength(1);
  });

  it("refuses a wrong current password or a weak new one, changing nothing", async () => {
    const user = await seedUser();
    const { idToken } = await signIn(user);
    const wrong = await call("/api/auth/change-password", { body: { currentPassword: "Nope#1234", newPassword: NEW_PASSWORD }, token: idToken });
    expect(wrong.status).toBe(400);
    expect((await json(wrong)).error).toMatchObject({ message: "Current password is incorrect", details: { reason: "wrong_password" } });
    expect((await call("/api/auth/change-password", { body: { currentPassword: PASSWORD, newPassword: "weakpass" }, token: idToken })).status).toBe(400);
    expect(await signIn(user)).toBeTruthy();
  });

  it("limits guesses of the current password", async () => {
    const user = await seedUser();
    const { idToken } = await signIn(user);
    let last = 0;
    for (let i = 0; i < 11; i++)
      last = (await call("/api/auth/change-password", { body: { currentPassword: "Nope#1234", newPassword: NEW_PASSWORD }, token: idToken })).status;
    expect(last).toBe(429);
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
