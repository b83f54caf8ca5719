import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, outbox, users, verificationCodes } from "../db/schema";
import { call, codeIn, db, json, lastOutboxId, nextSms, PASSWORD, seedUser, signIn, typed, uniqueAddress, uniquePhone } from "../test/fixtures";
import { expireCodes, NEW_PASSWORD, userByPhone } from "../test/identity-fixtures";

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
