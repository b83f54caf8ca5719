import { describe, expect, it } from "vitest";
import { hashPassword, needsRehash, PBKDF2_ITERATIONS, verifyPassword } from "./password";

describe("password hashing", () => {
  it("stays within Cloudflare's production PBKDF2 ceiling of 100,000 iterations", () => {
    expect(PBKDF2_ITERATIONS).toBeLessThanOrEqual(100_000);
    expect(PBKDF2_ITERATIONS).toBeGreaterThanOrEqual(50_000);
  });

  it("stores a self-describing hash with a fresh salt each time", async () => {
    const a = await hashPassword("Secret#123", "pepper");
    const b = await hashPassword("Secret#123", "pepper");
    expect(a).toMatch(new RegExp(`^pbkdf2-sha256\\$${PBKDF2_ITERATIONS}\\$[\\w-]{22}\\$[\\w-]{43}$`));
    expect(a).not.toBe(b);
    expect(needsRehash(a)).toBe(false);
  });

  it("verifies the right password only, and only with the right pepper", async () => {
    const stored = await hashPassword("Secret#123", "pepper");
    expect(await verifyPassword("Secret#123", stored, "pepper")).toBe(true);
    expect(await verifyPassword("Secret#124", stored, "pepper")).toBe(false);
    expect(await verifyPassword("Secret#123", stored, "other-pepper")).toBe(false);
  });

  it("rejects malformed or over-cost stored hashes instead of throwing", async () => {
    expect(await verifyPassword("x", "plain-text", "p")).toBe(false);
    expect(await verifyPassword("x", "pbkdf2-sha256$999999$AAAA$AAAA", "p")).toBe(false);
  });
});
