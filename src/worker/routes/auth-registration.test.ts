import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { REGISTRATION_CONSENT } from "../../shared/consent-texts";
import { PBKDF2_ITERATIONS, verifyPassword } from "../auth/password";
import { consentState } from "../compliance/consent";
import { consentEvents, outbox, rateLimits, referralCodes, users } from "../db/schema";
import { call, codeIn, db, json, lastOutboxId, nextSms, PASSWORD, seedUser, signIn, typed, uniqueAddress, uniquePhone } from "../test/fixtures";
import { countRows, expireCodes, NEW_PASSWORD, register, registerAndGetCode, userByPhone } from "../test/identity-fixtures";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("POST /api/auth/register", () => {
  it("records the marketing consent box in the ledger, with the exact wording shown and its version, unconfirmed until the registrant confirms", async () => {
    const [ticked, unticked] = [uniquePhone(), uniquePhone()];
    const before = await lastOutboxId();
    expect((await register({ phoneNumber: typed(ticked), language: "es", marketingConsent: { version: REGISTRATION_CONSENT.version } })).status).toBe(201);
    expect((await register({ phoneNumber: typed(unticked) })).status).toBe(201);
    const rows = await db.select().from(consentEvents).where(eq(consentEvents.phone, ticked));
    const user = await userByPhone(ticked);
    const tick = {
      kind: "consent",
      source: "registration",
      channel: "all",
      text: REGISTRATION_CONSENT.es,
      textVersion: REGISTRATION_CONSENT.version,
      language: "es",
      userId: user!.id,
    };
    expect(rows).toEqual([expect.objectContaining({ ...tick, basis: "unconfirmed" })]);
    expect((await consentState(db, ticked)).marketingAllowed).toEqual({ sms: false, whatsapp: false });
    // The registrant proves the phone with the code and the registration password: the tick is confirmed.
    const code = codeIn((await nextSms(ticked, before)).body);
    expect((await call("/api/auth/confirm", { body: { phoneNumber: ticked, app: "flex", code, password: PASSWORD } })).status).toBe(200);
    expect(await db.select().from(consentEvents).where(eq(consentEvents.phone, ticked))).toEqual([
      expect.objectContaining({ ...tick, basis: "unconfirmed" }),
      expect.objectContaining({ ...tick, basis: "express" }),
    ]);
    expect((await consentState(db, ticked)).marketingAllowed).toEqual({ sms: true, whatsapp: true });
    expect(await db.select().from(consentEvents).where(eq(consentEvents.phone, unticked))).toEqual([]);
    // A wording we never showed is refused, and no account is made.
    const stale = uniquePhone();
    expect((await register({ phoneNumber: typed(stale), marketingConsent: { version: "made-up" } })).status).toBe(400);
    expect(await countRows(stale)).toBe(0);
  });

  it("creates an unconfirmed account from a phone as typed and texts a code", async () => {
    const phone = uniquePhone();
    const before = await lastOutboxId();
    const res = await register({ phoneNumber: typed(phone), email: "new@example.com", language: "es" });
    expect(res.status).toBe(201);
    expect(await json(res)).toEqual({ codeDelivery: { destination: `•••${phone.slice(-4)}` } });

    const user = await userByPhone(phone);
    expect(user).toMatchObject({
      app: "flex",
      phone,
      phoneVerified: false,
      name: "New Driver",
      email: "new@example.com",
      language: "es",
      isAdmin: false,
      referralCode: null,
    });
    expect(user!.passwordHash).toMatch(new RegExp(`^pbkdf2-sha256\\$${PBKDF2_ITERATIONS}\\$`));
    expect(await verifyPassword(PASSWORD, user!.passwordHash!, env.PASSWORD_PEPPER)).toBe(true);
    expect(user!.inviteCode).toMatch(/^[A-Z2-9]{8}$/);

    const sms = await nextSms(phone, before);
    expect(sms.body).toMatch(/^Blockpilot: tu código de verificación es \d{6}\./);
  });

  it("gives every account its own invite code", async () => {
    const phones = [uniquePhone(), uniquePhone(), uniquePhone()];
    for (const phone of phones) expect((await register({ phoneNumber: phone })).status).toBe(201);
    const codes = await Promise.all(phones.map(async (phone) => (await userByPhone(phone))!.inviteCode));
    expect(new Set(codes).size).toBe(3);
  });

  it("answers 409 for a phone that already has an account in that app, and changes nothing", async () => {
    const existing = await seedUser();
    const res = await register({ phoneNumber: existing.phone, name: "Someone Else" });
    expect(res.status).toBe(409);
    expect(await json(res)).toEqual({ error: { code: "conflict", message: "An account with this phone number already exists" } });
    expect((await userByPhone(existing.phone))!.name).toBe("Test Driver");
    // The other app is a separate account.
    expect((await register({ phoneNumber: existing.phone, app: "spark" })).status).toBe(201);
  });

  it("stores a referral code that exists, in its canonical form, once the registrant confirms with the registration password", async () => {
    const code = `REF${uniquePhone().slice(-6)}`;
    await db.insert(referralCodes).values({ code, app: "flex", owner: "Partner" });
    const phone = uniquePhone();
    const texted = await registerAndGetCode(phone, { referralCode: ` ${code.toLowerCase()} ` });
    // Pending until the phone is proven by whoever registered.
    expect((await userByPhone(phone))!.referralCode).toBeNull();
    expect((await call("/api/auth/confirm", { body: { phoneNumber: phone, app: "flex", code: texted, password: PASSWORD } })).status).toBe(200);
    expect((await userByPhone(phone))!.referralCode).toBe(code);
  });

  it("refuses an unknown referral code with 422 and creates nothing", async () => {
    const phone = uniquePhone();
    const res = await register({ phoneNumber: phone, referralCode: "NOPE-NEVER" });
    expect(res.status).toBe(422);
    expect((await json(res)).error).toMatchObject({ code: "unprocessable", message: "Referral code not found. Check it or leave it empty" });
    expect(await countRows(phone)).toBe(0);
  });

  it.each([
    ["short", "Ab#1efg", "passwordLength", "At least 8 characters"],
    ["no number", "Abcdefg#", "passwordNumber", "Include a number"],
    ["no uppercase", "abcdefg#1", "passwordUppercase", "Include an uppercase letter"],
    ["no special character", "Abcdefg12", "passwordSpecial", "Include a special character"],
  ])("refuses a password with %s, naming the rule by code and in words", async (_, password, code, words) => {
    const phone = uniquePhone();
    const res = await register({ phoneNumber: phone, password });
    expect(res.status).toBe(400);
    const { error } = await json(res);
    expect(error.code).toBe("validation_failed");
    expect(error.message).toBe(`password: ${words}`);
    expect(error.details).toEqual([{ path: "password", code, message: words }]);
    expect(await countRows(phone)).toBe(0);
  });

  it("accepts long passwords (64 characters and more)", async () => {
    for (const length of [64, 200]) {
      const phone = uniquePhone();
      const password = `A1#${"x".repeat(length - 3)}`;
      expect((await register({ phoneNumber: phone, password })).status).toBe(201);
      await db.update(users).set({ phoneVerified: true }).where(eq(users.phone, phone));
      expect((await signIn({ app: "flex", phone, password })).idToken).toBeTruthy();
    }
  });

  it.each([
    ["a non-NANP phone", { phoneNumber: "+44 20 7946 0958" }],
    ["letters in the phone", { phoneNumber: "305-CALL-NOW" }],
    ["an unknown app", { app: "uber" }],
    ["a bad email", { email: "not-an-email" }],
    ["an unknown language", { language: "fr" }],
    ["an empty name", { name: "   " }],
  ])("refuses %s with 400", async (_, override) => {
    const res = await register({ phoneNumber: uniquePhone(), ...override });
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe("validation_failed");
  });

  it("refuses malformed JSON with 400", async () => {
    const res = await call("/api/auth/register", { method: "POST", headers: { "content-type": "application/json" }, body: undefined });
    expect(res.status).toBe(400);
    const raw = await call("/api/auth/register", { method: "POST", headers: { "content-type": "application/json" } });
    expect(raw.status).toBe(400);
  });

  it("limits new accounts per client address", async () => {
    const address = uniqueAddress();
    for (let i = 0; i < 10; i++) expect((await register({ phoneNumber: uniquePhone() }, address)).status).toBe(201);
    const phone = uniquePhone();
    const res = await register({ phoneNumber: phone }, address);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(3000);
    expect(await countRows(phone)).toBe(0);
  });
});

describe("POST /api/auth/confirm", () => {
  it("confirms the phone with the texted code and the registration password, signing in", async () => {
    const phone = uniquePhone();
    const code = await registerAndGetCode(phone);
    const res = await call("/api/auth/confirm", { body: { phoneNumber: typed(phone), app: "flex", code, password: PASSWORD } });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toEqual({ confirmed: true, tokens: expect.objectContaining({ idToken: expect.any(String) }) });
    expect(decodeJwt(body.tokens.idToken).phone_number_verified).toBe(true);
    const user = await userByPhone(phone);
    expect(user!.phoneVerified).toBe(true);
    expect(await verifyPassword(PASSWORD, user!.passwordHash!, env.PASSWORD_PEPPER)).toBe(true);
  });

  it("without the registration password, confirms and asks the phone's owner for a password of their own", async () => {
    const phone = uniquePhone();
    const code = await registerAndGetCode(phone);
    const res = await call("/api/auth/confirm", { body: { phoneNumber: typed(phone), app: "flex", code } });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toEqual({ confirmed: true, challenge: "NEW_PASSWORD_REQUIRED", session: expect.stringMatching(/^[\w-]{43}$/) });
    expect(await userByPhone(phone)).toMatchObject({ phoneVerified: true, passwordHash: null, mustChangePassword: true });
    const done = await call("/api/auth/respond", { body: { challenge: "NEW_PASSWORD_REQUIRED", session: body.session, newPassword: NEW_PASSWORD } });
    expect(done.status).toBe(200);
    expect((await json(done)).tokens).toBeTruthy();
    expect(await signIn({ app: "flex", phone, password: NEW_PASSWORD })).toBeTruthy();
  });

  it("refuses a wrong code and says how many tries are left", async () => {
    const phone = uniquePhone();
    const code = await registerAndGetCode(phone);
    const wrong = code === "000000" ? "111111" : "000000";
    const res = await call("/api/auth/confirm", { body: { phoneNumber: phone, app: "flex", code: wrong } });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({ error: { code: "bad_request", message: "Incorrect code", details: { reason: "mismatch", attemptsLeft: 4 } } });
    expect((await userByPhone(phone))!.phoneVerified).toBe(false);
  });

  it("refuses the right code after five wrong ones", async () => {
    const phone = uniquePhone();
    const code = await registerAndGetCode(phone);
    const wrong = code === "000000" ? "111111" : "000000";
    for (let i = 0; i < 5; i++) await call("/api/auth/confirm", { body: { phoneNumber: phone, app: "flex", code: wrong } });
    const res = await call("/api/auth/confirm", { body: { phoneNumber: phone, app: "flex", code } });
    expect((await json(res)).error.details).toEqual({ reason: "exhausted" });
    expect((await userByPhone(phone))!.phoneVerified).toBe(false);
  });

  it("refuses an expired code", async () => {
    const phone = uniquePhone();
    const code = await registerAndGetCode(phone);
    await expireCodes(phone);
    const res = await call("/api/auth/confirm", { body: { phoneNumber: phone, app: "flex", code } });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({ message: "This code has expired. Request a new one", details: { reason: "expired" } });
  });

  it("expires codes after ten minutes of (fake) time", async () => {
    const phone = uniquePhone();
    const code = await registerAndGetCode(phone);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 10 * 60_000 + 1);
    const res = await call("/api/auth/confirm", { body: { phoneNumber: phone, app: "flex", code } });
    expect((await json(res)).error.details).toEqual({ reason: "expired" });
  });

  it("refuses a code used once already", async () => {
    const phone = uniquePhone();
    const code = await registerAndGetCode(phone);
    expect((await call("/api/auth/confirm", { body: { phoneNumber: phone, app: "flex", code } })).status).toBe(200);
    const again = await call("/api/auth/confirm", { body: { phoneNumber: phone, app: "flex", code } });
    expect((await json(again)).error.details).toEqual({ reason: "used" });
  });

  it("refuses a code that is not six digits with 400 validation", async () => {
    const res = await call("/api/auth/confirm", { body: { phoneNumber: uniquePhone(), app: "flex", code: "12345" } });
    expect((await json(res)).error.code).toBe("validation_failed");
  });

  it("rate-limits code checks per phone and client", async () => {
    const phone = uniquePhone();
    await registerAndGetCode(phone);
    const address = uniqueAddress();
    // Wrong codes also earn the client growing waits (auth-lockouts.test.ts); the window counts every answer.
    await db.insert(rateLimits).values({ key: `codeCheckPerAccountClient:flex:${phone}:${address}`, count: 10, resetAt: Date.now() + 15 * 60_000 });
    const blocked = await call("/api/auth/confirm", { body: { phoneNumber: phone, app: "flex", code: "999999" }, address });
    expect(blocked.status).toBe(429);
    expect((await call("/api/auth/confirm", { body: { phoneNumber: phone, app: "flex", code: "999999" } })).status).toBe(400);
  });

  it("rate-limits code checks per client address across phones", async () => {
    const address = uniqueAddress();
    let last = 0;
    for (let i = 0; i < 51; i++)
      last = (await call("/api/auth/confirm", { body: { phoneNumber: uniquePhone(), app: "flex", code: "999999" }, address })).status;
    expect(last).toBe(429);
  });
});

describe("POST /api/auth/resend-code", () => {
  it("throttles to one code per 30 seconds, and the new code replaces the old", async () => {
    const phone = uniquePhone();
    const first = await registerAndGetCode(phone);
    const early = await call("/api/auth/resend-code", { body: { phoneNumber: phone, app: "flex" } });
    expect(early.status).toBe(429);
    expect(Number(early.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(Number(early.headers.get("Retry-After"))).toBeLessThanOrEqual(30);
    expect((await json(early)).error.code).toBe("rate_limited");

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 31_000);
    const before = await lastOutboxId();
    const res = await call("/api/auth/resend-code", { body: { phoneNumber: phone, app: "flex" } });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ codeDelivery: { destination: `•••${phone.slice(-4)}` } });
    const second = codeIn((await nextSms(phone, before)).body);
    if (second !== first) {
      const stale = await call("/api/auth/confirm", { body: { phoneNumber: phone, app: "flex", code: first } });
      expect(stale.status).toBe(400);
    }
    expect((await call("/api/auth/confirm", { body: { phoneNumber: phone, app: "flex", code: second } })).status).toBe(200);
  });

  it("allows five codes an hour per phone", async () => {
    const phone = uniquePhone();
    await registerAndGetCode(phone);
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = Date.now();
    const statuses: number[] = [];
    for (let i = 1; i <= 5; i++) {
      vi.setSystemTime(start + i * 31_000);
      statuses.push((await call("/api/auth/resend-code", { body: { phoneNumber: phone, app: "flex" } })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });

  it("answers the same for unknown and confirmed phones but texts nobody", async () => {
    const confirmed = await seedUser();
    const unknown = uniquePhone();
    const before = await lastOutboxId();
    for (const phone of [confirmed.phone, unknown]) {
      const res = await call("/api/auth/resend-code", { body: { phoneNumber: phone, app: "flex" } });
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual({ codeDelivery: { destination: `•••${phone.slice(-4)}` } });
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await db.select().from(outbox).where(eq(outbox.to, unknown))).toHaveLength(0);
    expect(await db.select().from(outbox).where(eq(outbox.to, confirmed.phone))).toHaveLength(0);
    expect(await lastOutboxId()).toBe(before);
  });
});
