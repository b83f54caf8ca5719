import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startRefreshFamily } from "../auth/refresh-tokens";
import { openSecret } from "../auth/secret-box";
import { generateTotpSecret, totpCode } from "../auth/totp";
import { auditLog, authChallenges, users } from "../db/schema";
import { call, codeIn, db, json, lastOutboxId, nextSms, seedAdmin, seedUser, uniqueAddress, uniquePhone } from "../test/fixtures";

afterEach(() => {
  vi.useRealTimers();
});

type Step = { tokens?: { idToken: string; refreshToken: string }; challenge?: string; session?: string; parameters?: { secret: string; otpauthUri: string } };

async function passwordSignIn(user: { app: string; phone: string; password: string | null }): Promise<Step> {
  const res = await call("/api/auth/sign-in", { body: { phoneNumber: user.phone, app: user.app, password: user.password } });
  expect(res.status).toBe(200);
  return json<Step>(res);
}

async function respond(body: Record<string, unknown>) {
  return call("/api/auth/respond", { body });
}

const otherCode = (code: string) => (code === "000000" ? "111111" : "000000");
const userById = (id: number) => db.query.users.findFirst({ where: eq(users.id, id) });

describe("SOFTWARE_TOKEN_MFA", () => {
  it("asks an admin with TOTP for a code and issues tokens for the right one", async () => {
    const admin = await seedAdmin();
    const step = await passwordSignIn(admin);
    expect(step).toEqual({ challenge: "SOFTWARE_TOKEN_MFA", session: expect.stringMatching(/^[\w-]{43}$/) });

    const res = await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: step.session, code: await totpCode(admin.totpSecret) });
    expect(res.status).toBe(200);
    const { tokens } = await json<Step>(res);
    expect(decodeJwt(tokens!.idToken)).toMatchObject({ sub: String(admin.id), is_admin: true });
    const audit = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.actorId, admin.id), eq(auditLog.action, "auth.sign_in")))
      .get();
    expect(audit?.details).toMatchObject({ method: "password", challenges: ["SOFTWARE_TOKEN_MFA"] });
  });

  it("accepts the previous and next step (clock skew), not two steps away", async () => {
    const admin = await seedAdmin();
    // Codes are made for the step the server will be in when it checks: not in a step's last seconds,
    // so the check does not fall in the next step (a sign-in under load takes a second or more).
    const awayFromStepEnd = async () => {
      const left = 30_000 - (Date.now() % 30_000);
      if (left < 5_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
      return Date.now();
    };
    for (const offset of [-30_000, 30_000]) {
      const step = await passwordSignIn(admin);
      // Later steps each time: a step once used cannot be used again.
      const code = await totpCode(admin.totpSecret, (await awayFromStepEnd()) + offset);
      const res = await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: step.session, code });
      expect(res.status, `offset ${offset}`).toBe(200);
    }
    const step = await passwordSignIn(admin);
    const now = await awayFromStepEnd();
    const far = await totpCode(admin.totpSecret, now + 90_000);
    const near = await Promise.all([-30_000, 0, 30_000].map((o) => totpCode(admin.totpSecret, now + o)));
    if (!near.includes(far)) expect((await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: step.session, code: far })).status).toBe(400);
  });

  it("refuses a code already used to sign in (same step, another session)", async () => {
    const admin = await seedAdmin();
    const code = await totpCode(admin.totpSecret);
    const first = await passwordSignIn(admin);
    expect((await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: first.session, code })).status).toBe(200);
    const second = await passwordSignIn(admin);
    const replay = await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: second.session, code });
    expect(replay.status).toBe(400);
    expect((await json(replay)).error).toMatchObject({ message: "This code was already used. Wait for the next one", details: { reason: "used" } });
  });

  it("ends the session after five wrong codes", async () => {
    const admin = await seedAdmin();
    const step = await passwordSignIn(admin);
    const right = await totpCode(admin.totpSecret);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: step.session, code: otherCode(right) })).status);
    expect(statuses).toEqual([400, 400, 400, 400, 401]);
    const after = await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: step.session, code: right });
    expect(after.status).toBe(401);
    expect((await json(after)).error.message).toBe("Session expired. Sign in again");
  });

  it("expires the session after five minutes", async () => {
    const admin = await seedAdmin();
    const step = await passwordSignIn(admin);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 5 * 60_000 + 1);
    const res = await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: step.session, code: await totpCode(admin.totpSecret) });
    expect(res.status).toBe(401);
  });

  it("refuses a session answered as another challenge, and unknown sessions", async () => {
    const admin = await seedAdmin();
    const step = await passwordSignIn(admin);
    const wrongKind = await respond({ challenge: "SMS_MFA", session: step.session, code: "123456" });
    expect(wrongKind.status).toBe(400);
    expect((await json(wrongKind)).error.details).toEqual({ reason: "wrong_challenge", expected: "SOFTWARE_TOKEN_MFA" });
    expect((await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: "x".repeat(43), code: "123456" })).status).toBe(401);
    expect((await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: step.session })).status).toBe(400);
    expect((await respond({ challenge: "NOT_A_CHALLENGE", session: step.session, code: "123456" })).status).toBe(400);
  });

  it("uses a session once", async () => {
    const admin = await seedAdmin();
    const step = await passwordSignIn(admin);
    expect((await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: step.session, code: await totpCode(admin.totpSecret) })).status).toBe(200);
    const again = await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: step.session, code: await totpCode(admin.totpSecret, Date.now() + 30_000) });
    expect(again.status).toBe(401);
  });
});

describe("an administrator never gets tokens without TOTP", () => {
  it("asks for TOTP after an SMS sign-in too", async () => {
    const admin = await seedAdmin();
    const before = await lastOutboxId();
    const custom = await json<Step>(await call("/api/auth/sign-in", { body: { phoneNumber: admin.phone, app: "flex", method: "sms" } }));
    expect(custom.challenge).toBe("CUSTOM_CHALLENGE");
    const code = codeIn((await nextSms(admin.phone, before)).body);
    const next = await json<Step>(await respond({ challenge: "CUSTOM_CHALLENGE", session: custom.session, code }));
    expect(next.tokens).toBeUndefined();
    expect(next.challenge).toBe("SOFTWARE_TOKEN_MFA");
    const done = await json<Step>(await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: next.session, code: await totpCode(admin.totpSecret) }));
    expect(done.tokens?.idToken).toBeTruthy();
  });

  it("will not refresh an admin session that did not pass TOTP", async () => {
    const admin = await seedAdmin();
    const { token } = await startRefreshFamily(db, admin.id, { passedTotp: false });
    const res = await call("/api/auth/refresh", { body: { refreshToken: token } });
    expect(res.status).toBe(401);
  });

  it("refreshes an admin session that did", async () => {
    const admin = await seedAdmin();
    const step = await passwordSignIn(admin);
    const { tokens } = await json<Step>(await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: step.session, code: await totpCode(admin.totpSecret) }));
    const res = await call("/api/auth/refresh", { body: { refreshToken: tokens!.refreshToken } });
    expect(res.status).toBe(200);
    expect(decodeJwt((await json<Step>(res)).tokens!.idToken).is_admin).toBe(true);
  });

  it("stops refreshing a driver's session once they are made an admin without TOTP", async () => {
    const driver = await seedUser();
    const { tokens } = await passwordSignIn(driver);
    await db.update(users).set({ isAdmin: true }).where(eq(users.id, driver.id));
    expect((await call("/api/auth/refresh", { body: { refreshToken: tokens!.refreshToken } })).status).toBe(401);
  });
});

describe("MFA_SETUP", () => {
  it("enrols an admin without TOTP: secret and otpauth URI, then the first code turns it on", async () => {
    const admin = await seedUser({ isAdmin: true, roleName: "support" });
    const step = await passwordSignIn(admin);
    expect(step.challenge).toBe("MFA_SETUP");
    const { secret, otpauthUri } = step.parameters!;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauthUri.startsWith(`otpauth://totp/Blockpilot:${encodeURIComponent(admin.phone)}?`)).toBe(true);
    expect(Object.fromEntries(new URL(otpauthUri).searchParams)).toEqual({ secret, issuer: "Blockpilot", algorithm: "SHA1", digits: "6", period: "30" });
    // The proposed secret is sealed in the challenge row, not stored in clear.
    const row = await db.select().from(authChallenges).where(eq(authChallenges.id, step.session!)).get();
    expect(JSON.stringify(row)).not.toContain(secret);

    const wrong = await respond({ challenge: "MFA_SETUP", session: step.session, code: otherCode(await totpCode(secret)) });
    expect(wrong.status).toBe(400);
    expect((await userById(admin.id))!.mfaMethod).toBe("none");

    const res = await respond({ challenge: "MFA_SETUP", session: step.session, code: await totpCode(secret) });
    expect(res.status).toBe(200);
    expect((await json<Step>(res)).tokens?.idToken).toBeTruthy();

    const enrolled = (await userById(admin.id))!;
    expect(enrolled.mfaMethod).toBe("totp");
    expect(enrolled.mfaSecret).not.toContain(secret);
    expect(await openSecret(enrolled.mfaSecret!, env.MFA_ENCRYPTION_KEY)).toBe(secret);
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.actorId, admin.id), eq(auditLog.action, "auth.mfa_enabled"))),
    ).toHaveLength(1);

    // From now on the admin is asked for a code, and the setup code cannot be replayed.
    const next = await passwordSignIn(admin);
    expect(next.challenge).toBe("SOFTWARE_TOKEN_MFA");
    expect((await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: next.session, code: await totpCode(secret) })).status).toBe(400);
    expect((await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: next.session, code: await totpCode(secret, Date.now() + 30_000) })).status).toBe(200);
  });

  it("gives a new secret each time setup starts over", async () => {
    const admin = await seedUser({ isAdmin: true });
    const a = await passwordSignIn(admin);
    const b = await passwordSignIn(admin);
    expect(a.parameters!.secret).not.toBe(b.parameters!.secret);
    // A code from the first secret does not complete the second setup.
    const code = await totpCode(a.parameters!.secret);
    if (code !== (await totpCode(b.parameters!.secret))) expect((await respond({ challenge: "MFA_SETUP", session: b.session, code })).status).toBe(400);
  });

  it("is not offered to drivers", async () => {
    const driver = await seedUser();
    expect((await passwordSignIn(driver)).tokens).toBeTruthy();
  });
});

describe("SMS_MFA", () => {
  it("texts a code to a user with SMS as second factor; the code completes sign-in", async () => {
    const user = await seedUser({ mfaMethod: "sms" });
    const before = await lastOutboxId();
    const step = await passwordSignIn(user);
    expect(step).toEqual({ challenge: "SMS_MFA", session: expect.any(String) });
    const sms = await nextSms(user.phone, before);
    expect(sms.body).toMatch(/^Your Blockpilot security code is \d{6}\./);
    const code = codeIn(sms.body);

    const wrong = await respond({ challenge: "SMS_MFA", session: step.session, code: otherCode(code) });
    expect(wrong.status).toBe(400);
    expect((await json(wrong)).error.details).toEqual({ reason: "mismatch", attemptsLeft: 4 });

    const res = await respond({ challenge: "SMS_MFA", session: step.session, code });
    expect(res.status).toBe(200);
    expect((await json<Step>(res)).tokens?.idToken).toBeTruthy();
  });

  it("refuses an expired code", async () => {
    const user = await seedUser({ mfaMethod: "sms" });
    const before = await lastOutboxId();
    const step = await passwordSignIn(user);
    const code = codeIn((await nextSms(user.phone, before)).body);
    vi.useFakeTimers({ toFake: ["Date"] });
    // Past the code's ten minutes, so past the session's five as well.
    vi.setSystemTime(Date.now() + 10 * 60_000 + 1);
    expect((await respond({ challenge: "SMS_MFA", session: step.session, code })).status).toBe(401);
  });
});

describe("CUSTOM_CHALLENGE (sign in by SMS code)", () => {
  it("texts a sign-in code and signs in with it", async () => {
    const user = await seedUser({ language: "es" });
    const before = await lastOutboxId();
    const res = await call("/api/auth/sign-in", { body: { phoneNumber: user.phone, app: "flex", method: "sms" } });
    expect(res.status).toBe(200);
    const step = await json<Step>(res);
    expect(step).toEqual({ challenge: "CUSTOM_CHALLENGE", session: expect.stringMatching(/^[\w-]{43}$/) });
    const sms = await nextSms(user.phone, before);
    expect(sms.body).toMatch(/^Blockpilot: tu código para entrar es \d{6}/);

    const done = await respond({ challenge: "CUSTOM_CHALLENGE", session: step.session, code: codeIn(sms.body) });
    expect(done.status).toBe(200);
    const { tokens } = await json<Step>(done);
    expect(decodeJwt(tokens!.idToken).phone_number_verified).toBe(true);
  });

  it("works for accounts without a password", async () => {
    const user = await seedUser({ password: null });
    const before = await lastOutboxId();
    const step = await json<Step>(await call("/api/auth/sign-in", { body: { phoneNumber: user.phone, app: "flex", method: "sms" } }));
    const code = codeIn((await nextSms(user.phone, before)).body);
    expect((await json<Step>(await respond({ challenge: "CUSTOM_CHALLENGE", session: step.session, code }))).tokens).toBeTruthy();
  });

  it("answers an unknown phone with the same shape and texts nobody", async () => {
    const phone = uniquePhone();
    const res = await call("/api/auth/sign-in", { body: { phoneNumber: phone, app: "flex", method: "sms" } });
    expect(res.status).toBe(200);
    const step = await json<Step>(res);
    expect(step).toEqual({ challenge: "CUSTOM_CHALLENGE", session: expect.stringMatching(/^[\w-]{43}$/) });
    // Its session behaves as a real one: a wrong code says how many tries are left (auth-sms-fraud.test.ts compares them all).
    const wrong = await respond({ challenge: "CUSTOM_CHALLENGE", session: step.session, code: "123456" });
    expect(wrong.status).toBe(400);
    expect((await json(wrong)).error).toMatchObject({ details: { reason: "mismatch", attemptsLeft: 4 } });
  });

  it("refuses a reused code and a code for another purpose", async () => {
    const user = await seedUser();
    let before = await lastOutboxId();
    const first = await json<Step>(await call("/api/auth/sign-in", { body: { phoneNumber: user.phone, app: "flex", method: "sms" } }));
    const code = codeIn((await nextSms(user.phone, before)).body);
    expect((await respond({ challenge: "CUSTOM_CHALLENGE", session: first.session, code })).status).toBe(200);

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 31_000);
    before = await lastOutboxId();
    const second = await json<Step>(await call("/api/auth/sign-in", { body: { phoneNumber: user.phone, app: "flex", method: "sms" } }));
    const fresh = codeIn((await nextSms(user.phone, before)).body);
    if (fresh !== code) expect((await respond({ challenge: "CUSTOM_CHALLENGE", session: second.session, code })).status).toBe(400);

    // A password-reset code is not a sign-in code.
    vi.setSystemTime(Date.now() + 31_000);
    before = await lastOutboxId();
    await call("/api/auth/forgot-password", { body: { phoneNumber: user.phone, app: "flex" } });
    const resetCode = codeIn((await nextSms(user.phone, before)).body);
    if (resetCode !== fresh) expect((await respond({ challenge: "CUSTOM_CHALLENGE", session: second.session, code: resetCode })).status).toBe(400);
    expect((await respond({ challenge: "CUSTOM_CHALLENGE", session: second.session, code: fresh })).status).toBe(200);
  });

  it("throttles sign-in codes like any other", async () => {
    const user = await seedUser();
    expect((await call("/api/auth/sign-in", { body: { phoneNumber: user.phone, app: "flex", method: "sms" } })).status).toBe(200);
    const res = await call("/api/auth/sign-in", { body: { phoneNumber: user.phone, app: "flex", method: "sms" } });
    expect(res.status).toBe(429);
    expect(res.headers.get("Retry-After")).toBeTruthy();
  });

  it("rate-limits answers per phone and client across sessions", async () => {
    const user = await seedUser({ totpSecret: generateTotpSecret() });
    const sessions: string[] = [];
    for (let i = 0; i < 3; i++) sessions.push((await passwordSignIn(user)).session!);
    const address = uniqueAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push((await call("/api/auth/respond", { body: { challenge: "SOFTWARE_TOKEN_MFA", session: sessions[i % 3], code: "000000" }, address })).status);
    expect(statuses.at(-1)).toBe(429);
  });
});

describe("NEW_PASSWORD_REQUIRED", () => {
  it("makes a user with a temporary password choose a new one before tokens", async () => {
    const user = await seedUser({ mustChangePassword: true, password: "Temp#Pass1234" });
    const step = await passwordSignIn(user);
    expect(step).toEqual({ challenge: "NEW_PASSWORD_REQUIRED", session: expect.any(String) });

    const weak = await respond({ challenge: "NEW_PASSWORD_REQUIRED", session: step.session, newPassword: "weak" });
    expect(weak.status).toBe(400);
    expect((await json(weak)).error.code).toBe("validation_failed");
    const same = await respond({ challenge: "NEW_PASSWORD_REQUIRED", session: step.session, newPassword: "Temp#Pass1234" });
    expect((await json(same)).error.details).toEqual({ reason: "same_password" });

    const res = await respond({ challenge: "NEW_PASSWORD_REQUIRED", session: step.session, newPassword: "Mine#Now2026" });
    expect(res.status).toBe(200);
    expect((await json<Step>(res)).tokens).toBeTruthy();
    expect((await userById(user.id))!.mustChangePassword).toBe(false);
    expect((await call("/api/auth/sign-in", { body: { phoneNumber: user.phone, app: "flex", password: "Temp#Pass1234" } })).status).toBe(401);
    expect((await passwordSignIn({ ...user, password: "Mine#Now2026" })).tokens).toBeTruthy();
  });

  it("comes after an enrolled second factor, and before TOTP enrolment for a new admin", async () => {
    const withTotp = await seedAdmin({ mustChangePassword: true });
    const first = await passwordSignIn(withTotp);
    expect(first.challenge).toBe("SOFTWARE_TOKEN_MFA");
    const second = await json<Step>(await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: first.session, code: await totpCode(withTotp.totpSecret) }));
    expect(second.challenge).toBe("NEW_PASSWORD_REQUIRED");
    const done = await json<Step>(await respond({ challenge: "NEW_PASSWORD_REQUIRED", session: second.session, newPassword: "Mine#Now2026" }));
    expect(done.tokens).toBeTruthy();

    const newAdmin = await seedUser({ isAdmin: true, mustChangePassword: true });
    const a = await passwordSignIn(newAdmin);
    expect(a.challenge).toBe("NEW_PASSWORD_REQUIRED");
    const b = await json<Step>(await respond({ challenge: "NEW_PASSWORD_REQUIRED", session: a.session, newPassword: "Mine#Now2026" }));
    expect(b.challenge).toBe("MFA_SETUP");
    const c = await json<Step>(await respond({ challenge: "MFA_SETUP", session: b.session, code: await totpCode(b.parameters!.secret) }));
    expect(c.tokens).toBeTruthy();
    const audits = await db.select().from(auditLog).where(eq(auditLog.actorId, newAdmin.id));
    expect(audits.map((a) => a.action).sort()).toEqual(["auth.mfa_enabled", "auth.password_changed", "auth.sign_in"]);
  });
});
