/**
 * SMS cost fraud through the code endpoints, and telling known phones from unknown ones by the SMS
 * sign-in: findings of the security review (docs/security.md), each as the attack it stops.
 */
import { env } from "cloudflare:test";
import { and, eq, inArray } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PHONE_REFUSAL_CODES, PHONE_REFUSAL_MESSAGES } from "../../shared/phone";
import { deliverCode, type IdentityDeps } from "../auth/code-delivery";
import { clientAddress, RATE_LIMITS, REQUESTED_SMS_BUDGET_KEY } from "../auth/rate-limit";
import { rateLimits } from "../db/schema";
import { createLogger } from "../log";
import { OWNER_PASSWORD, passwordSignIn, post, restoreClockAndMocks, type Step } from "../test/auth-attacks";
import { call, db, json, PASSWORD, seedUser, signIn, uniqueAddress, uniquePhone } from "../test/fixtures";

afterEach(restoreClockAndMocks);

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
    // The budget is one window for every text: this test's own, whatever other tests (some with
    // their clocks a day ahead) left in it.
    await db.delete(rateLimits).where(eq(rateLimits.key, REQUESTED_SMS_BUDGET_KEY));
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
