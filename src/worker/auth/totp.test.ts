import * as OTPAuth from "otpauth";
import { describe, expect, it } from "vitest";
import { db, seedUser } from "../test/fixtures";
import { claimTotpStep, generateTotpSecret, otpauthUri, totpCode, totpStep, verifyTotp } from "./totp";

/** RFC 6238's SHA-1 seed, "12345678901234567890", in base32. */
const rfcSecret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";

/** A standard authenticator app: otpauth with the defaults every app assumes (SHA-1, 6 digits, 30 s), knowing only the secret. */
const authenticator = (secret: string) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });

describe("TOTP (RFC 6238)", () => {
  // RFC 6238 appendix B, SHA-1 column; our codes are the last 6 of its 8 digits.
  it.each([
    [59, "287082"],
    [1111111109, "081804"],
    [1111111111, "050471"],
    [1234567890, "005924"],
    [2000000000, "279037"],
    [20000000000, "353130"],
  ])("matches the RFC test vector at T=%i", (seconds, expected) => {
    expect(totpCode(rfcSecret, seconds * 1000)).toBe(expected);
    expect(verifyTotp(rfcSecret, expected, seconds * 1000)).toBe(totpStep(seconds * 1000));
  });

  const now = 1_800_000_000_000;
  it.each([
    { offset: -1, accepted: true },
    { offset: 0, accepted: true },
    { offset: 1, accepted: true },
    { offset: -2, accepted: false },
    { offset: 2, accepted: false },
    { offset: -3, accepted: false },
    { offset: 10, accepted: false },
  ])("a standard authenticator's code $offset step(s) from now: accepted $accepted", ({ offset, accepted }) => {
    for (let i = 0; i < 10; i++) {
      const secret = generateTotpSecret();
      const code = authenticator(secret).generate({ timestamp: now + offset * 30_000 });
      if (accepted) {
        expect(verifyTotp(secret, code, now)).toBe(totpStep(now) + offset);
        continue;
      }
      // A far-off code can coincide with a near one by chance (1 in 10^6 per step); skip that case.
      const near = [-1, 0, 1].map((o) => authenticator(secret).generate({ timestamp: now + o * 30_000 }));
      if (!near.includes(code)) expect(verifyTotp(secret, code, now)).toBeNull();
    }
  });

  it("gives the codes a standard authenticator shows, for random secrets and times", () => {
    for (let i = 0; i < 20; i++) {
      const secret = generateTotpSecret();
      const time = Math.floor(Math.random() * 4e12);
      expect(totpCode(secret, time)).toBe(authenticator(secret).generate({ timestamp: time }));
    }
  });

  it.each([
    ["a seventh digit", (code: string) => `${code}0`],
    ["a letter", () => "12345a"],
    ["nothing", () => ""],
    ["a digit changed", (code: string) => code.slice(0, 5) + String((Number(code[5]) + 1) % 10)],
  ])("refuses %s", (_case, change) => {
    const secret = generateTotpSecret();
    expect(verifyTotp(secret, change(totpCode(secret, now)), now)).toBeNull();
  });

  it("refuses another secret's code", () => {
    const secret = generateTotpSecret();
    const other = generateTotpSecret();
    const code = authenticator(other).generate({ timestamp: now });
    const near = [-1, 0, 1].map((o) => totpCode(secret, now + o * 30_000));
    if (!near.includes(code)) expect(verifyTotp(secret, code, now)).toBeNull();
  });

  it("makes 160-bit secrets", () => {
    const secret = generateTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(OTPAuth.Secret.fromBase32(secret).bytes).toHaveLength(20);
    expect(generateTotpSecret()).not.toBe(secret);
  });

  it("builds an otpauth URI that authenticator apps (and otpauth) parse back", () => {
    const secret = generateTotpSecret();
    const uri = otpauthUri(secret, "+13055550100");
    expect(uri.startsWith("otpauth://totp/Blockpilot:%2B13055550100?")).toBe(true);
    expect(Object.fromEntries(new URL(uri).searchParams)).toEqual({ secret, issuer: "Blockpilot", algorithm: "SHA1", digits: "6", period: "30" });
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
