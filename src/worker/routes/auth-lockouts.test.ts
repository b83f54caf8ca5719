/**
 * Guessing codes over days, and locking someone else's account by guessing wrong: findings of the
 * security review (docs/security.md), each as the attack it stops.
 */
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RATE_LIMITS, SMS_CODE_BACKOFF } from "../auth/rate-limit";
import { totpCode } from "../auth/totp";
import { rateLimits } from "../db/schema";
import { OWNER_PASSWORD, passwordSignIn, post, respond, restoreClockAndMocks, type Step, squat } from "../test/auth-attacks";
import { codeIn, db, json, lastOutboxId, nextSms, PASSWORD, seedUser, uniqueAddress, uniquePhone } from "../test/fixtures";

afterEach(restoreClockAndMocks);

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
