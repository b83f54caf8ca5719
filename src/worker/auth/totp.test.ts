import * as OTPAuth from "otpauth";
import { describe, expect, it } from "vitest";
import { db, seedUser } from "../test/fixtures";
import { base32Decode, base32Encode, claimTotpStep, generateTotpSecret, otpauthUri, totpCode, totpCodeForStep, totpStep, verifyTotp } from "./totp";

const rfcSecret = new Uint8Array(new TextEncoder().encode("12345678901234567890"));

describe("TOTP (RFC 6238)", () => {
  // RFC 6238 appendix B, SHA-1 column; our codes are the last 6 of its 8 digits.
  it.each([
    [59, "287082"],
    [1111111109, "081804"],
    [1111111111, "050471"],
    [1234567890, "005924"],
    [2000000000, "279037"],
    [20000000000, "353130"],
  ])("matches the RFC test vector at T=%i", async (seconds, expected) => {
    expect(await totpCodeForStep(rfcSecret, totpStep(seconds * 1000))).toBe(expected);
  });

  it("agrees with the otpauth library for random secrets and times", async () => {
    for (let i = 0; i < 20; i++) {
      const secret = generateTotpSecret();
      const time = Math.floor(Math.random() * 4e12);
      const reference = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30 });
      expect(await totpCode(secret, time)).toBe(reference.generate({ timestamp: time }));
    }
  });

  it("round-trips base32 and reads secrets the way people copy them", () => {
    const bytes = crypto.getRandomValues(new Uint8Array(20));
    expect(base32Decode(base32Encode(bytes))).toEqual(bytes);
    expect(new TextDecoder().decode(base32Decode("jbsw y3dp ====").slice(0, 5))).toBe("Hello");
    expect(() => base32Decode("NOT-BASE32!")).toThrow();
  });

  it("makes 160-bit secrets", () => {
    const secret = generateTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(base32Decode(secret)).toHaveLength(20);
    expect(generateTotpSecret()).not.toBe(secret);
  });

  it("accepts the current step and one either side, nothing further", async () => {
    const secret = generateTotpSecret();
    const now = 1_800_000_000_000;
    for (const offset of [-1, 0, 1]) {
      const code = await totpCode(secret, now + offset * 30_000);
      expect(await verifyTotp(secret, code, now)).toBe(totpStep(now) + offset);
    }
    for (const offset of [-3, -2, 2, 3]) {
      const code = await totpCode(secret, now + offset * 30_000);
      // A far-off code can coincide with a near one by chance (1 in 10^6 per step); skip that case.
      const near = await Promise.all([-1, 0, 1].map((o) => totpCode(secret, now + o * 30_000)));
      if (!near.includes(code)) expect(await verifyTotp(secret, code, now)).toBeNull();
    }
  });

  it("rejects codes that are not six digits, and a wrong secret", async () => {
    const secret = generateTotpSecret();
    const code = await totpCode(secret);
    expect(await verifyTotp(secret, `${code}0`)).toBeNull();
    expect(await verifyTotp(secret, "12345a")).toBeNull();
    expect(await verifyTotp(secret, "")).toBeNull();
    expect(await verifyTotp(generateTotpSecret(), code)).toBeNull();
  });

  it("builds an otpauth URI that authenticator apps (and otpauth) parse back", () => {
    const secret = generateTotpSecret();
    const uri = otpauthUri(secret, "+13055550100");
    const parsed = OTPAuth.URI.parse(uri) as OTPAuth.TOTP;
    expect(parsed).toBeInstanceOf(OTPAuth.TOTP);
    expect(parsed.secret.base32).toBe(secret);
    expect(parsed.issuer).toBe("Blockpilot");
    expect(parsed.label).toBe("+13055550100");
    expect(parsed.digits).toBe(6);
    expect(parsed.period).toBe(30);
  });

  it("refuses a step that is not newer than the last one a user used", async () => {
    const a = await seedUser();
    const b = await seedUser();
    const step = totpStep(Date.now());
    expect(await claimTotpStep(db, a.id, step)).toBe(true);
    expect(await claimTotpStep(db, a.id, step)).toBe(false);
    expect(await claimTotpStep(db, a.id, step - 1)).toBe(false);
    expect(await claimTotpStep(db, b.id, step)).toBe(true);
    expect(await claimTotpStep(db, a.id, step + 1)).toBe(true);
  });
});
