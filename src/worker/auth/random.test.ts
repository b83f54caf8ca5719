import { describe, expect, it } from "vitest";
import { passwordSchema } from "../../shared/auth";
import { randomBelow, randomCode, randomInviteCode, randomTemporaryPassword, randomToken } from "./random";

describe("random values", () => {
  it("makes 6-digit codes covering every digit in every position", () => {
    const seen = Array.from({ length: 6 }, () => new Set<string>());
    for (let i = 0; i < 2000; i++) {
      const code = randomCode();
      expect(code).toMatch(/^\d{6}$/);
      for (const [position, digit] of [...code].entries()) seen[position]!.add(digit);
    }
    for (const digits of seen) expect(digits.size).toBe(10);
  });

  it("draws without modulo bias: a bound of 3 splits evenly", () => {
    // 2^32 is not a multiple of 3, so `% 3` of a raw draw would favour 0; rejection sampling does not.
    const counts = [0, 0, 0];
    for (let i = 0; i < 30_000; i++) counts[randomBelow(3)]!++;
    for (const count of counts) expect(Math.abs(count - 10_000)).toBeLessThan(600);
    expect(() => randomBelow(0)).toThrow(RangeError);
    expect(() => randomBelow(1.5)).toThrow(RangeError);
    expect(randomBelow(1)).toBe(0);
  });

  it("makes 256-bit opaque tokens", () => {
    const token = randomToken();
    expect(token).toMatch(/^[\w-]{43}$/);
    expect(randomToken()).not.toBe(token);
  });

  it("makes invite codes without look-alike characters", () => {
    for (let i = 0; i < 200; i++) expect(randomInviteCode()).toMatch(/^[A-HJKMNP-Z2-9]{8}$/);
  });

  it("makes temporary passwords that always pass the password rules", () => {
    for (let i = 0; i < 200; i++) {
      const password = randomTemporaryPassword();
      expect(password).toHaveLength(14);
      expect(passwordSchema.safeParse(password).success).toBe(true);
    }
  });
});
