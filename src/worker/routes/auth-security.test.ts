/**
 * The identity findings of the security review (docs/security.md), each as the attack it stops:
 * someone registering another person's phone, credential changes that ended nothing, SMS cost
 * fraud through the code endpoints, guessing codes over days, telling known phones from unknown
 * ones by the SMS sign-in, and sessions kept alive forever by refreshing them.
 */
import { env } from "cloudflare:test";
import { and, eq, inArray } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { REGISTRATION_CONSENT } from "../../shared/consent-texts";
import { PHONE_REFUSAL_CODES, PHONE_REFUSAL_MESSAGES } from "../../shared/phone";
import { deliverCode, type IdentityDeps } from "../auth/code-delivery";
import { issueCode } from "../auth/codes";
import { clientAddress, RATE_LIMITS, SMS_CODE_BACKOFF } from "../auth/rate-limit";
import { SESSION_MAX_AGE_MS, startRefreshFamily } from "../auth/refresh-tokens";
import { idTokenFor } from "../auth/sign-in-flow";
import { totpCode } from "../auth/totp";
import { consentState } from "../compliance/consent";
import { auditLog, authChallenges, commissions, consentEvents, invitations, pendingSignups, rateLimits, users } from "../db/schema";
import { createLogger } from "../log";
import { openCheckout, payLocally, resellerWithClient, testPlan, userRow } from "../test/billing-fixtures";
import { call, codeIn, db, json, lastOutboxId, nextSms, PASSWORD, seedAdmin, seedUser, signIn, typed, uniqueAddress, uniquePhone } from "../test/fixtures";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const SQUATTER_PASSWORD = "Squat#2026!";
const OWNER_PASSWORD = "Owner#Own3d!";

type Step = { tokens?: { idToken: string; refreshToken: string }; challenge?: string; session?: string; parameters?: { secret: string } };

const post = (path: string, body: unknown, options: { token?: string; address?: string } = {}) => call(path, { body, ...options });
const respond = (body: Record<string, unknown>) => post("/api/auth/respond", body);
const userByPhone = (phone: string) => db.query.users.findFirst({ where: eq(users.phone, phone) });
const passwordSignIn = (phone: string, password: string, address?: string) =>
  post("/api/auth/sign-in", { phoneNumber: phone, app: "flex", password }, { address });

/** Someone registers a phone that is not theirs; the code goes to the real owner. */
async function squat(phone: string) {
  const before = await lastOutboxId();
  expect((await post("/api/auth/register", { phoneNumber: typed(phone), password: SQUATTER_PASSWORD, name: "Squatter", app: "flex" })).status).toBe(201);
  return codeIn((await nextSms(phone, before)).body);
}

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

describe("SMS cost fraud", () => {
  it("accepts only US and Canadian numbers that can receive SMS, saying why not", async () => {
    for (const [phoneNumber, reason] of [
      ["(800) 555-0100", "toll_free"],
      ["+1 900 555 0100", "premium"],
      ["+1 876 555 0100", "outside_us_canada"],
      ["(555) 555-0100", "not_in_service"],
      ["(305) 911-0100", "exchange"],
    ] as const) {
      for (const [path, body] of [
        ["/api/auth/register", { password: PASSWORD, name: "X" }],
        ["/api/auth/forgot-password", {}],
        ["/api/auth/resend-code", {}],
      ] as const) {
        const res = await post(path, { phoneNumber, app: "flex", ...body });
        expect(res.status, `${path} ${phoneNumber}`).toBe(400);
        expect((await json(res)).error.details[0]).toEqual({ path: "phoneNumber", message: PHONE_REFUSAL_MESSAGES[reason], code: PHONE_REFUSAL_CODES[reason] });
      }
      expect((await post("/api/auth/sign-in", { phoneNumber, app: "flex", method: "sms" })).status).toBe(400);
    }
    // Refused before anything was counted or sent.
    expect(await db.select().from(rateLimits).where(eq(rateLimits.key, "codeSendPerPhone:+18005550100"))).toEqual([]);
  });

  it("counts an IPv6 client by its /64: another address in the same /64 is the same client", async () => {
    expect(clientAddress("2001:db8:abcd:12::1")).toBe("2001:db8:abcd:12::/64");
    expect(clientAddress("2001:0DB8:ABCD:0012:ffff:ffff:ffff:ffff")).toBe("2001:db8:abcd:12::/64");
    expect(clientAddress("2001:db8:abcd:13::1")).toBe("2001:db8:abcd:13::/64");
    expect(clientAddress("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(clientAddress("203.0.113.9")).toBe("203.0.113.9");

    const group = () => ((Math.random() * 0xffff) | 0).toString(16);
    const prefix = `2001:db8:${group()}:${group()}`;
    // Answers to a session that does not exist cost nothing but count against the address.
    const answer = (address: string) => call("/api/auth/respond", { body: { challenge: "SMS_MFA", session: crypto.randomUUID(), code: "123456" }, address });
    const { limit } = RATE_LIMITS.codeCheckPerAddress;
    for (let i = 0; i < limit; i++) expect((await answer(`${prefix}::${(i + 1).toString(16)}`)).status).toBe(401);
    expect((await answer(`${prefix}:1:2:3:4`)).status).toBe(429);
    expect((await answer(`2001:db8:${group()}:${group()}::1`)).status).toBe(401);
  });

  it("has a global hourly budget for code texts, alerting in the log when it fills and on refusals", async () => {
    const errors: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: string) => void errors.push(line));
    // Two hours ahead: a window of the budget all to this test, whatever other tests sent.
    const now = Date.now() + 2 * 3600_000;
    const deps = (address: string): IdentityDeps => ({
      db,
      env,
      config: { CODE_SMS_HOURLY_BUDGET: 3 },
      log: createLogger(),
      address,
      waitUntil: () => {},
      now,
    });
    for (let i = 0; i < 3; i++)
      await deliverCode(deps(uniqueAddress()), { app: "flex", phone: uniquePhone(), purpose: "sign-in", language: "en", send: true, mayUseReserve: true });
    expect(errors.filter((e) => e.includes("alert.requested_sms_budget") && e.includes('"reached"'))).toHaveLength(1);
    await expect(
      deliverCode(deps(uniqueAddress()), { app: "flex", phone: uniquePhone(), purpose: "sign-in", language: "en", send: true, mayUseReserve: true }),
    ).rejects.toMatchObject({
      status: 429,
    });
    expect(errors.filter((e) => e.includes("alert.requested_sms_budget") && e.includes('"refusing"'))).toHaveLength(1);
  });

  // Fifty PBKDF2 checks: seconds on a busy machine.
  it("writes nothing for a refused attempt: a client stopped by its own limit cannot fill a victim's", { timeout: 60_000 }, async () => {
    const victim = await seedUser();
    const address = uniqueAddress();
    for (let i = 0; i < RATE_LIMITS.signInPerAddress.limit; i++) await passwordSignIn(uniquePhone(), "Wrong#Pass1", address);
    for (let i = 0; i < 5; i++) expect((await passwordSignIn(victim.phone, "Wrong#Pass1", address)).status).toBe(429);
    expect(
      await db
        .select()
        .from(rateLimits)
        .where(inArray(rateLimits.key, [`passwordPerAccountClient:flex:${victim.phone}:${address}`, `passwordPerAccount:flex:${victim.phone}`])),
    ).toEqual([]);
    // The victim, from anywhere else, signs in as usual.
    expect((await passwordSignIn(victim.phone, PASSWORD)).status).toBe(200);
  });

  it("does no PBKDF2 work for a rate-limited request", { timeout: 60_000 }, async () => {
    const user = await seedUser();
    const driver = await seedUser();
    const session = await signIn(driver);
    const address = uniqueAddress();
    for (let i = 0; i < RATE_LIMITS.passwordPerAccountClient.limit; i++) await passwordSignIn(user.phone, "Wrong#Pass1", address);
    for (let i = 0; i < RATE_LIMITS.registerPerAddress.limit; i++) {
      await post("/api/auth/register", { phoneNumber: uniquePhone(), password: PASSWORD, name: "N", app: "flex" }, { address });
    }
    for (let i = 0; i < RATE_LIMITS.passwordChangePerUser.limit; i++) {
      await post("/api/auth/change-password", { currentPassword: "Wrong#Pass1", newPassword: OWNER_PASSWORD }, { token: session.idToken });
    }

    const derive = vi.spyOn(crypto.subtle, "deriveBits");
    expect((await passwordSignIn(user.phone, PASSWORD, address)).status).toBe(429);
    expect((await post("/api/auth/register", { phoneNumber: uniquePhone(), password: PASSWORD, name: "N", app: "flex" }, { address })).status).toBe(429);
    expect((await post("/api/auth/change-password", { currentPassword: PASSWORD, newPassword: OWNER_PASSWORD }, { token: session.idToken })).status).toBe(429);
    expect(derive).not.toHaveBeenCalled();
    // The spy does see the work of a request that is not limited.
    expect((await passwordSignIn(driver.phone, "Wrong#Pass1")).status).toBe(401);
    expect(derive).toHaveBeenCalled();
  });
});

describe("guessing codes over days", () => {
  it("locks an account's authenticator checks for the day after 20 wrong codes past the password, from any address", { timeout: 60_000 }, async () => {
    const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
    const user = await seedUser({ totpSecret: secret });
    const { limit } = RATE_LIMITS.authenticatorFailuresPerAccount;
    let wrong = 0;
    while (wrong < limit) {
      const step = await json<Step>(await passwordSignIn(user.phone, PASSWORD, uniqueAddress()));
      for (let i = 0; i < 5 && wrong < limit; i++, wrong++) await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: step.session, code: "000000" });
      // The short per-phone window is not what stops this: move past it.
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(Date.now() + 16 * 60_000);
    }
    const step = await json<Step>(await passwordSignIn(user.phone, PASSWORD, uniqueAddress()));
    const right = await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: step.session, code: await totpCode(secret) });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get("Retry-After"))).toBeGreaterThan(3600);
    vi.setSystemTime(Date.now() + 24 * 3600_000);
    const later = await json<Step>(await passwordSignIn(user.phone, PASSWORD, uniqueAddress()));
    expect((await respond({ challenge: "SOFTWARE_TOKEN_MFA", session: later.session, code: await totpCode(secret) })).status).toBe(200);
  });

  it("counts wrong SMS codes on confirm and reset the same way, per client, and only wrong ones; never toward the authenticator's lockout", async () => {
    const phone = uniquePhone();
    await squat(phone);
    const address = uniqueAddress();
    await post("/api/auth/confirm", { phoneNumber: phone, app: "flex", code: "000000" }, { address });
    await post("/api/auth/reset-password", { phoneNumber: phone, app: "flex", code: "000000", newPassword: OWNER_PASSWORD }, { address });
    const row = await db
      .select()
      .from(rateLimits)
      .where(eq(rateLimits.key, `smsCodeFailures:flex:${phone}:${address}`))
      .get();
    // The reset had no code to compare against ("missing"): not a guess.
    expect(row?.count).toBe(1);
    expect(
      await db
        .select()
        .from(rateLimits)
        .where(eq(rateLimits.key, `authenticatorFailuresPerAccount:flex:${phone}`)),
    ).toEqual([]);
  });
});

describe("SMS sign-in answers the same for known and unknown phones", () => {
  it("every answer along the way, to the last attempt", { timeout: 30_000 }, async () => {
    const known = await seedUser();
    const unknown = uniquePhone();
    const addresses = new Map<string, string>();
    const answers = async (phone: string) => {
      const address = uniqueAddress();
      addresses.set(phone, address);
      const start = await post("/api/auth/sign-in", { phoneNumber: phone, app: "flex", method: "sms" }, { address });
      const step = await json<Step>(start);
      const seen: unknown[] = [start.status, Object.keys(step).sort()];
      for (let i = 0; i < 6; i++) {
        const res = await post("/api/auth/respond", { challenge: "CUSTOM_CHALLENGE", session: step.session, code: "000000" }, { address });
        seen.push(res.status, await json(res));
      }
      return seen;
    };
    // "000000" is almost surely not the texted code; if it were, the known phone would sign in.
    expect(await answers(unknown)).toEqual(await answers(known.phone));
    const wrongs = await db
      .select()
      .from(rateLimits)
      .where(and(eq(rateLimits.key, `smsCodeFailures:flex:${unknown}:${addresses.get(unknown)}`)))
      .get();
    expect(wrongs?.count).toBe(5);
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

describe("nobody can lock someone else's account", () => {
  const RETRY = (res: Response) => Number(res.headers.get("Retry-After"));

  it("wrong SMS codes hold back only the client sending them, with growing waits; the owner signs in by SMS, authenticator included", {
    timeout: 60_000,
  }, async () => {
    const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
    const owner = await seedUser({ totpSecret: secret });
    const attacker = uniqueAddress();
    vi.useFakeTimers({ toFake: ["Date"] });
    const wait = (ms: number) => vi.setSystemTime(Date.now() + ms);

    let session: string | undefined;
    let left = 0;
    const waits: number[] = [];
    // Ten answers: the per-client window (10 in 15 minutes) is not what holds the attacker here.
    for (let wrong = 0; wrong < 10; ) {
      if (left === 0) {
        wait(31_000); // the next sign-in code may be texted 30 s after the last
        const start = await post("/api/auth/sign-in", { phoneNumber: owner.phone, app: "flex", method: "sms" }, { address: attacker });
        expect(start.status).toBe(200);
        session = (await json<Step>(start)).session;
        left = 5;
      }
      const res = await post("/api/auth/respond", { challenge: "CUSTOM_CHALLENGE", session, code: "000000" }, { address: attacker });
      if (res.status === 429) {
        waits.push(RETRY(res));
        wait(RETRY(res) * 1000);
        continue;
      }
      expect([400, 401]).toContain(res.status);
      wrong++;
      left--;
    }
    // Past the free ones, every wrong code made the attacker wait, twice as long each time.
    expect(waits).toEqual([2, 4, 8, 16]);
    expect(waits.length).toBe(10 - SMS_CODE_BACKOFF.freeFailures - 1);
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThan(waits[i - 1]!);
    // The hold covers every SMS code of the account from that client (a reset code too).
    const refused = await post(
      "/api/auth/reset-password",
      { phoneNumber: owner.phone, app: "flex", code: "000000", newPassword: OWNER_PASSWORD },
      { address: attacker },
    );
    expect(refused.status).toBe(429);
    expect(RETRY(refused)).toBeGreaterThan(waits.at(-1)!);

    // The owner, on their own phone, signs in by SMS at once, and their authenticator is not locked.
    wait(31_000);
    const mine = uniqueAddress();
    const before = await lastOutboxId();
    const start = await json<Step>(await post("/api/auth/sign-in", { phoneNumber: owner.phone, app: "flex", method: "sms" }, { address: mine }));
    const code = codeIn((await nextSms(owner.phone, before)).body);
    const totp = await json<Step>(await post("/api/auth/respond", { challenge: "CUSTOM_CHALLENGE", session: start.session, code }, { address: mine }));
    expect(totp.challenge).toBe("SOFTWARE_TOKEN_MFA");
    const done = await post("/api/auth/respond", { challenge: "SOFTWARE_TOKEN_MFA", session: totp.session, code: await totpCode(secret) }, { address: mine });
    expect(done.status).toBe(200);
    expect((await json<Step>(done)).tokens).toBeTruthy();
  });

  it("wrong passwords from others block neither the owner's SMS sign-in nor a reset; the per-account ceiling stops passwords only", {
    timeout: 60_000,
  }, async () => {
    const owner = await seedUser();
    for (let i = 0; i < 11; i++) expect((await passwordSignIn(owner.phone, "Wrong#Pass1", uniqueAddress())).status).toBe(401);
    expect((await post("/api/auth/sign-in", { phoneNumber: owner.phone, app: "flex", method: "sms" })).status).toBe(200);
    expect((await passwordSignIn(owner.phone, PASSWORD)).status).toBe(200);

    // Many clients together reach the ceiling: passwords stop for everyone, SMS sign-in and reset do not.
    const { limit, windowMs } = RATE_LIMITS.passwordPerAccount;
    await db
      .update(rateLimits)
      .set({ count: limit, resetAt: Date.now() + windowMs })
      .where(eq(rateLimits.key, `passwordPerAccount:flex:${owner.phone}`));
    expect((await passwordSignIn(owner.phone, PASSWORD)).status).toBe(429);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 31_000);
    const before = await lastOutboxId();
    const start = await json<Step>(await post("/api/auth/sign-in", { phoneNumber: owner.phone, app: "flex", method: "sms" }));
    const code = codeIn((await nextSms(owner.phone, before)).body);
    expect((await json<Step>(await respond({ challenge: "CUSTOM_CHALLENGE", session: start.session, code }))).tokens).toBeTruthy();
    const resetBefore = await lastOutboxId();
    expect((await post("/api/auth/forgot-password", { phoneNumber: owner.phone, app: "flex" })).status).toBe(200);
    const resetCode = codeIn((await nextSms(owner.phone, resetBefore)).body);
    expect((await post("/api/auth/reset-password", { phoneNumber: owner.phone, app: "flex", code: resetCode, newPassword: OWNER_PASSWORD })).status).toBe(200);
  });
});
