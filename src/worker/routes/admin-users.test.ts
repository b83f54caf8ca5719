import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { totpCode } from "../auth/totp";
import { auditLog, users } from "../db/schema";
import { call, db, json, lastOutboxId, nextSms, seedAdmin, seedUser, signIn, signInAdmin, typed, uniquePhone } from "../test/fixtures";

type Step = { tokens?: { idToken: string }; challenge?: string; session?: string; parameters?: { secret: string } };

async function adminToken(options: Parameters<typeof seedAdmin>[0] = {}) {
  const admin = await seedAdmin(options);
  return { admin, token: (await signInAdmin(admin)).idToken };
}

const temporaryPasswordIn = (body: string) => /temporary password (\S+)$|contraseña temporal (\S+)$/.exec(body)!.slice(1).find(Boolean)!;

describe("POST /api/admin/users", () => {
  it("creates a driver who must choose a password at first sign-in; the temporary one goes only by SMS", async () => {
    const { admin, token } = await adminToken();
    const phone = uniquePhone();
    const before = await lastOutboxId();
    const res = await call("/api/admin/users", { body: { phoneNumber: typed(phone), app: "flex", name: "Walk-in Driver", language: "es" }, token });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body.Item).toMatchObject({ phoneNumber: phone, name: "Walk-in Driver", isAdmin: false, role: null, phoneNumberVerified: false, language: "es" });
    expect(body.delivery).toEqual({ destination: `•••${phone.slice(-4)}` });
    expect(JSON.stringify(body)).not.toMatch(/temporary|password/i);

    const sms = await nextSms(phone, before);
    expect(sms.body).toMatch(/^Blockpilot: tu cuenta está lista/);
    const temporary = temporaryPasswordIn(sms.body);

    const step = await json<Step>(await call("/api/auth/sign-in", { body: { phoneNumber: phone, app: "flex", password: temporary } }));
    expect(step.challenge).toBe("NEW_PASSWORD_REQUIRED");
    const done = await json<Step>(
      await call("/api/auth/respond", { body: { challenge: "NEW_PASSWORD_REQUIRED", session: step.session, newPassword: "Chosen#Pass1" } }),
    );
    expect(done.tokens).toBeTruthy();

    const audit = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.actorId, admin.id), eq(auditLog.action, "admin.user_created")))
      .get();
    expect(audit).toMatchObject({ target: `user:${body.Item.id}`, details: { app: "flex", isAdmin: false } });
  });

  it("lets the owner create an administrator, who then sets a password and enrols TOTP", async () => {
    const { token } = await adminToken();
    const phone = uniquePhone();
    const before = await lastOutboxId();
    const res = await call("/api/admin/users", {
      body: { phoneNumber: phone, app: "flex", name: "New Support", isAdmin: true, roleName: "support", billingDetails: false },
      token,
    });
    expect(res.status).toBe(201);
    expect((await json(res)).Item).toMatchObject({ isAdmin: true, role: { name: "support", properties: { billingDetails: false } } });
    const temporary = temporaryPasswordIn((await nextSms(phone, before)).body);

    const a = await json<Step>(await call("/api/auth/sign-in", { body: { phoneNumber: phone, app: "flex", password: temporary } }));
    expect(a.challenge).toBe("NEW_PASSWORD_REQUIRED");
    const b = await json<Step>(
      await call("/api/auth/respond", { body: { challenge: "NEW_PASSWORD_REQUIRED", session: a.session, newPassword: "Chosen#Pass1" } }),
    );
    expect(b.challenge).toBe("MFA_SETUP");
    const c = await json<Step>(
      await call("/api/auth/respond", { body: { challenge: "MFA_SETUP", session: b.session, code: await totpCode(b.parameters!.secret) } }),
    );
    expect(c.tokens).toBeTruthy();
  });

  it("refuses administrator accounts from admins who are not the owner", async () => {
    const { token } = await adminToken({ roleName: "support" });
    const phone = uniquePhone();
    const res = await call("/api/admin/users", { body: { phoneNumber: phone, app: "flex", name: "X", isAdmin: true }, token });
    expect(res.status).toBe(403);
    expect(await db.select().from(users).where(eq(users.phone, phone))).toHaveLength(0);
    // Drivers they may create.
    expect((await call("/api/admin/users", { body: { phoneNumber: phone, app: "flex", name: "X" }, token })).status).toBe(201);
  });

  it("answers 409 for an existing account and 400 for bad input, creating nothing", async () => {
    const { token } = await adminToken();
    const existing = await seedUser();
    const conflict = await call("/api/admin/users", { body: { phoneNumber: existing.phone, app: "flex", name: "Dup" }, token });
    expect(conflict.status).toBe(409);
    expect((await json(conflict)).error.message).toBe("An account with this phone number already exists");
    for (const body of [
      { app: "flex", name: "No phone" },
      { phoneNumber: "123", app: "flex", name: "X" },
      { phoneNumber: uniquePhone(), app: "flex", name: "X", roleName: "owner" },
    ]) {
      expect((await call("/api/admin/users", { body, token })).status).toBe(400);
    }
  });

  it("is for administrators only", async () => {
    const driver = await seedUser();
    const body = { phoneNumber: uniquePhone(), app: "flex", name: "X" };
    expect((await call("/api/admin/users", { body })).status).toBe(401);
    expect((await call("/api/admin/users", { body, token: (await signIn(driver)).idToken })).status).toBe(403);
  });
});
