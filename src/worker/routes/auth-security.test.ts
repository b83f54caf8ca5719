/**
 * The identity findings of the security review (docs/security.md), each as the attack it stops:
 * someone registering another person's phone, credential changes that ended nothing, and sessions
 * kept alive forever by refreshing them. SMS cost fraud and telling known phones from unknown ones
 * are in auth-sms-fraud.test.ts; guessing codes over days and locking others out, auth-lockouts.test.ts.
 */
import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { REGISTRATION_CONSENT } from "../../shared/consent-texts";
import { issueCode } from "../auth/codes";
import { SESSION_MAX_AGE_MS, startRefreshFamily } from "../auth/refresh-tokens";
import { idTokenFor } from "../auth/sign-in-flow";
import { totpCode } from "../auth/totp";
import { consentState } from "../compliance/consent";
import { auditLog, authChallenges, commissions, consentEvents, invitations, pendingSignups, users } from "../db/schema";
import { OWNER_PASSWORD, passwordSignIn, post, respond, restoreClockAndMocks, SQUATTER_PASSWORD, type Step, squat } from "../test/auth-attacks";
import { openCheckout, payLocally, resellerWithClient, testPlan, userRow } from "../test/billing-fixtures";
import { call, codeIn, db, json, lastOutboxId, nextSms, PASSWORD, seedAdmin, seedUser, signIn, uniquePhone } from "../test/fixtures";
import { userByPhone } from "../test/identity-fixtures";

afterEach(restoreClockAndMocks);

/** A session an unconfirmed account could hold before unconfirmed accounts got nothing. */
async function sessionFromBefore(userId: number) {
  const user = (await db.query.users.findFirst({ where: eq(users.id, userId) }))!;
  const { token, family } = await startRefreshFamily(db, userId, { passedTotp: false });
  return { idToken: await idTokenFor(env, user, family, Date.now()), refreshToken: token };
}

describe("registering someone else's phone", () => {
  it("gives the unconfirmed account no tokens, and an old session of it nothing", async () => {
    const phone = uniquePhone();
    await squat(phone);
    expect((await passwordSignIn(phone, SQUATTER_PASSWORD)).status).toBe(403);
    const old = await sessionFromBefore((await userByPhone(phone))!.id);
    const me = await call("/api/flex/v1/user", { token: old.idToken });
    expect(me.status).toBe(403);
    expect((await json(me)).error.details).toEqual({ reason: "unconfirmed" });
    expect((await post("/api/auth/refresh", { refreshToken: old.refreshToken })).status).toBe(401);
  });

  it("the owner signing in by SMS sets their own password; the squatter's password and pending sign-ins end", async () => {
    const phone = uniquePhone();
    await squat(phone);
    const user = (await userByPhone(phone))!;
    const squatterSession = await sessionFromBefore(user.id);
    const pending = await db
      .insert(authChallenges)
      .values({
        id: `pending-${crypto.randomUUID()}`,
        userId: user.id,
        challenge: "NEW_PASSWORD_REQUIRED",
        expiresAt: Date.now() + 60_000,
        data: { method: "sms", passed: [] },
      })
      .returning()
      .get();

    const before = await lastOutboxId();
    const start = await json<Step>(await post("/api/auth/sign-in", { phoneNumber: phone, app: "flex", method: "sms" }));
    const code = codeIn((await nextSms(phone, before)).body);
    const proved = await json<Step>(await respond({ challenge: "CUSTOM_CHALLENGE", session: start.session, code }));
    // Proving the phone is not enough to use an account someone else set a password on.
    expect(proved).toEqual({ challenge: "NEW_PASSWORD_REQUIRED", session: expect.any(String) });
    expect((await passwordSignIn(phone, SQUATTER_PASSWORD)).status).toBe(401);
    expect((await respond({ challenge: "NEW_PASSWORD_REQUIRED", session: pending.id, newPassword: "Another#Pass1" })).status).toBe(401);
    expect((await post("/api/auth/refresh", { refreshToken: squatterSession.refreshToken })).status).toBe(401);

    const done = await json<Step>(await respond({ challenge: "NEW_PASSWORD_REQUIRED", session: proved.session, newPassword: OWNER_PASSWORD }));
    expect(done.tokens).toBeTruthy();
    expect(await signIn({ app: "flex", phone, password: OWNER_PASSWORD })).toBeTruthy();
  });

  it("the owner confirming with the code (without the squatter's password) voids that password", async () => {
    const phone = uniquePhone();
    const code = await squat(phone);
    const confirmed = await json<Step & { confirmed: boolean }>(await post("/api/auth/confirm", { phoneNumber: phone, app: "flex", code }));
    expect(confirmed).toMatchObject({ confirmed: true, challenge: "NEW_PASSWORD_REQUIRED" });
    expect(confirmed.tokens).toBeUndefined();
    expect((await passwordSignIn(phone, SQUATTER_PASSWORD)).status).toBe(401);
    expect((await respond({ challenge: "NEW_PASSWORD_REQUIRED", session: confirmed.session, newPassword: OWNER_PASSWORD })).status).toBe(200);
  });

  it("a wrong password at confirm counts as none: the registration password is void", async () => {
    const phone = uniquePhone();
    const code = await squat(phone);
    const confirmed = await json<Step>(await post("/api/auth/confirm", { phoneNumber: phone, app: "flex", code, password: "Guess#1234" }));
    expect(confirmed.challenge).toBe("NEW_PASSWORD_REQUIRED");
    expect((await passwordSignIn(phone, SQUATTER_PASSWORD)).status).toBe(401);
  });

  it("a confirmed account cannot be confirmed again (its password stays)", async () => {
    const phone = uniquePhone();
    const code = await squat(phone);
    expect((await post("/api/auth/confirm", { phoneNumber: phone, app: "flex", code, password: SQUATTER_PASSWORD })).status).toBe(200);
    const another = await issueCode(db, env.PASSWORD_PEPPER, { app: "flex", phone, purpose: "confirm" });
    const res = await post("/api/auth/confirm", { phoneNumber: phone, app: "flex", code: another });
    expect(res.status).toBe(409);
    expect((await passwordSignIn(phone, SQUATTER_PASSWORD)).status).toBe(200);
  });

  it("an account an admin made signs in with the texted temporary password (it proves the phone) and must replace it", async () => {
    const user = await seedUser({ phoneVerified: false, mustChangePassword: true });
    const step = await json<Step>(await passwordSignIn(user.phone, PASSWORD));
    expect(step.challenge).toBe("NEW_PASSWORD_REQUIRED");
    expect((await json<Step>(await respond({ challenge: "NEW_PASSWORD_REQUIRED", session: step.session, newPassword: OWNER_PASSWORD }))).tokens).toBeTruthy();
    expect((await userByPhone(user.phone))!.phoneVerified).toBe(true);
  });
});

describe("credential changes end every other session and pending sign-in", () => {
  it("change-password keeps the caller's session and ends the others", async () => {
    const user = await seedUser();
    const here = await signIn(user);
    const elsewhere = await signIn(user);
    const res = await post("/api/auth/change-password", { currentPassword: PASSWORD, newPassword: OWNER_PASSWORD }, { token: here.idToken });
    expect(res.status).toBe(200);
    expect((await call("/api/flex/v1/user", { token: here.idToken })).status).toBe(200);
    expect((await call("/api/flex/v1/user", { token: elsewhere.idToken })).status).toBe(401);
    expect((await post("/api/auth/refresh", { refreshToken: elsewhere.refreshToken })).status).toBe(401);
    expect((await post("/api/auth/refresh", { refreshToken: here.refreshToken })).status).toBe(200);
  });

  it("change-password ends challenges started with the old password", async () => {
    const admin = await seedAdmin();
    const pending = await json<Step>(await passwordSignIn(admin.phone, PASSWORD));
    expect(pending.challenge).toBe("SOFTWARE_TOKEN_MFA");
    const here = await json<Step>(
      await respond({
        challenge: "SOFTWARE_TOKEN_MFA",
        session: (await json<Step>(await passwordSignIn(admin.phone, PASSWORD))).session,
        code: await totpCode(admin.totpSecret),
      }),
    );
    await post("/api/auth/change-password", { currentPassword: PASSWORD, newPassword: OWNER_PASSWORD }, { token: here.tokens!.idToken });
    const late = await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: pending.session, code: await totpCode(admin.totpSecret, Date.now() + 30_000) });
    expect(late.status).toBe(401);
  });

  it("a reset ends an MFA_SETUP started before it, which could otherwise still be finished", async () => {
    const admin = await seedUser({ isAdmin: true, roleName: "owner", roleProperties: { billingDetails: true } });
    const setup = await json<Step>(await passwordSignIn(admin.phone, PASSWORD));
    expect(setup.challenge).toBe("MFA_SETUP");
    const before = await lastOutboxId();
    await post("/api/auth/forgot-password", { phoneNumber: admin.phone, app: "flex" });
    const code = codeIn((await nextSms(admin.phone, before)).body);
    expect((await post("/api/auth/reset-password", { phoneNumber: admin.phone, app: "flex", code, newPassword: OWNER_PASSWORD })).status).toBe(200);
    const finished = await respond({ challenge: "MFA_SETUP", session: setup.session, code: await totpCode(setup.parameters!.secret) });
    expect(finished.status).toBe(401);
  });
});

describe("refresh tokens", () => {
  it("end 90 days after the sign-in however often they are refreshed", async () => {
    const user = await seedUser();
    let { refreshToken } = await signIn(user);
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = Date.now();
    for (const day of [25, 50, 75, 89]) {
      vi.setSystemTime(start + day * 86_400_000);
      const res = await post("/api/auth/refresh", { refreshToken });
      expect(res.status, `day ${day}`).toBe(200);
      refreshToken = (await json(res)).tokens.refreshToken;
    }
    vi.setSystemTime(start + SESSION_MAX_AGE_MS + 1000);
    const ended = await post("/api/auth/refresh", { refreshToken });
    expect(ended.status).toBe(401);
    expect((await json(ended)).error.details).toEqual({ reason: "expired" });
  });
});

describe("what a registrant typed waits for the registration password", () => {
  /** A squatter registers the phone with a claim on it (a reseller's referral code or an invite link), an email, a name and the marketing tick. */
  async function squatWithClaims(phone: string, referralCode: string) {
    const before = await lastOutboxId();
    const res = await post("/api/auth/register", {
      phoneNumber: phone,
      password: SQUATTER_PASSWORD,
      name: "Squatter",
      email: "squatter@example.com",
      app: "flex",
      referralCode,
      marketingConsent: { version: REGISTRATION_CONSENT.version },
    });
    expect(res.status).toBe(201);
    const user = (await userByPhone(phone))!;
    // Pending: no reseller or inviter holds a claim, and the tick allows nothing, while the phone is unproven.
    expect(user).toMatchObject({ referralCode: null, invitedBy: null });
    expect((await consentState(db, phone)).marketingAllowed).toEqual({ sms: false, whatsapp: false });
    return { user, code: codeIn((await nextSms(phone, before)).body) };
  }

  /** Nothing the squatter typed is left on the account the owner took. */
  async function expectNothingLeft(userId: number, phone: string, via: string) {
    expect(await db.query.users.findFirst({ where: eq(users.id, userId) })).toMatchObject({
      name: "",
      email: null,
      referralCode: null,
      invitedBy: null,
      phoneVerified: true,
    });
    expect(await db.select().from(invitations).where(eq(invitations.phone, phone))).toEqual([]);
    expect(await db.select().from(consentEvents).where(eq(consentEvents.phone, phone))).toEqual([]);
    expect(await db.select().from(pendingSignups).where(eq(pendingSignups.userId, userId))).toEqual([]);
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, "auth.signup_dropped"), eq(auditLog.target, `user:${userId}`))),
    ).toEqual([expect.objectContaining({ details: expect.objectContaining({ via }) })]);
  }

  /** The owner pays for a week; answers nothing, the test then looks at what the squatter's allies got. */
  async function ownerPays(tokens: { idToken: string }) {
    const { sessionId } = await openCheckout({ token: tokens.idToken }, (await testPlan()).id);
    expect((await payLocally(sessionId, "4242424242424242")).status).toBe(200);
  }

  it("confirm without the password: the squatter's reseller gets no client, no commission, no calendar", async () => {
    const { reseller, code: referral } = await resellerWithClient();
    const phone = uniquePhone();
    const { user, code } = await squatWithClaims(phone, referral);
    const step = await json<Step>(await post("/api/auth/confirm", { phoneNumber: phone, app: "flex", code }));
    const done = await json<Step>(await respond({ challenge: "NEW_PASSWORD_REQUIRED", session: step.session, newPassword: OWNER_PASSWORD }));
    await expectNothingLeft(user.id, phone, "confirm");
    await ownerPays(done.tokens!);
    expect(await db.select().from(commissions).where(eq(commissions.resellerId, reseller.id))).toEqual([]);
    const clients = await json(await call("/api/reseller/clients?page=1&pageSize=20", { token: reseller.token }));
    expect(clients.rows.map((r: { id: number }) => r.id)).not.toContain(user.id);
  });

  it("SMS sign-in: the squatting inviter earns no free week", async () => {
    const inviter = await seedUser({ expirationAt: Date.now() + 3 * 86_400_000, goodStanding: true });
    const phone = uniquePhone();
    const { user } = await squatWithClaims(phone, inviter.inviteCode);
    const before = await lastOutboxId();
    const start = await json<Step>(await post("/api/auth/sign-in", { phoneNumber: phone, app: "flex", method: "sms" }));
    const code = codeIn((await nextSms(phone, before)).body);
    const proved = await json<Step>(await respond({ challenge: "CUSTOM_CHALLENGE", session: start.session, code }));
    const done = await json<Step>(await respond({ challenge: "NEW_PASSWORD_REQUIRED", session: proved.session, newPassword: OWNER_PASSWORD }));
    await expectNothingLeft(user.id, phone, "sms_sign_in");
    await ownerPays(done.tokens!);
    expect((await userRow(inviter.id)).expirationAt).toBe(inviter.expirationAt);
  });

  it("reset-password: the referral, the invite link, the name, the email and the tick go", async () => {
    const inviter = await seedUser();
    const phone = uniquePhone();
    const { user } = await squatWithClaims(phone, inviter.inviteCode);
    const before = await lastOutboxId();
    expect((await post("/api/auth/forgot-password", { phoneNumber: phone, app: "flex" })).status).toBe(200);
    const code = codeIn((await nextSms(phone, before)).body);
    expect((await post("/api/auth/reset-password", { phoneNumber: phone, app: "flex", code, newPassword: OWNER_PASSWORD })).status).toBe(200);
    await expectNothingLeft(user.id, phone, "reset");
  });

  it("the registrant confirming with the registration password keeps all of it: referral, invite link, name, email, tick", async () => {
    const inviter = await seedUser();
    const phone = uniquePhone();
    const { user, code } = await squatWithClaims(phone, inviter.inviteCode);
    expect((await post("/api/auth/confirm", { phoneNumber: phone, app: "flex", code, password: SQUATTER_PASSWORD })).status).toBe(200);
    expect(await userByPhone(phone)).toMatchObject({ name: "Squatter", email: "squatter@example.com", invitedBy: inviter.id, phoneVerified: true });
    expect(await db.select().from(invitations).where(eq(invitations.phone, phone))).toEqual([expect.objectContaining({ inviterId: inviter.id, via: "link" })]);
    expect((await consentState(db, phone)).marketingAllowed).toEqual({ sms: true, whatsapp: true });
    expect(await db.select().from(pendingSignups).where(eq(pendingSignups.userId, user.id))).toEqual([]);
  });
});
