import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { refreshTokens } from "../db/schema";
import { db, seedUser } from "../test/fixtures";
import {
  familyPassedTotp,
  hashRefreshToken,
  REFRESH_TOKEN_TTL_MS,
  revokeAllRefreshTokens,
  revokeRefreshToken,
  rotateRefreshToken,
  startRefreshFamily,
} from "./refresh-tokens";

describe("refresh tokens", () => {
  it("stores only the SHA-256 of a 256-bit token, for 30 days", async () => {
    const user = await seedUser();
    const now = 1_900_000_000_000;
    const token = (await startRefreshFamily(db, user.id, { passedTotp: false }, now)).token;
    expect(token).toMatch(/^[\w-]{43}$/);
    const rows = await db.select().from(refreshTokens).where(eq(refreshTokens.userId, user.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).toBe(await hashRefreshToken(token));
    expect(rows[0]!.tokenHash).not.toBe(token);
    expect(rows[0]!.expiresAt).toBe(now + REFRESH_TOKEN_TTL_MS);
    expect(REFRESH_TOKEN_TTL_MS).toBe(30 * 24 * 3600 * 1000);
  });

  it("rotates on every use, keeping the family", async () => {
    const user = await seedUser();
    const first = (await startRefreshFamily(db, user.id, { passedTotp: true })).token;
    const second = await rotateRefreshToken(db, first);
    if (!second.ok) throw new Error(second.reason);
    expect(second.token).not.toBe(first);
    expect(second.userId).toBe(user.id);
    expect(familyPassedTotp(second.family)).toBe(true);
    const third = await rotateRefreshToken(db, second.token);
    expect(third.ok && third.family).toBe(second.family);
  });

  it("revokes the whole family when a rotated token comes back", async () => {
    const user = await seedUser();
    const stolen = (await startRefreshFamily(db, user.id, { passedTotp: false })).token;
    const legit = await rotateRefreshToken(db, stolen);
    if (!legit.ok) throw new Error(legit.reason);
    const other = (await startRefreshFamily(db, user.id, { passedTotp: false })).token;

    expect(await rotateRefreshToken(db, stolen)).toEqual({ ok: false, reason: "reused" });
    expect(await rotateRefreshToken(db, legit.token)).toEqual({ ok: false, reason: "revoked" });
    // Another sign-in (another family) of the same user is untouched.
    expect((await rotateRefreshToken(db, other)).ok).toBe(true);
  });

  it("lets only one of two concurrent rotations win, and then revokes the family", async () => {
    const user = await seedUser();
    const token = (await startRefreshFamily(db, user.id, { passedTotp: false })).token;
    const results = await Promise.all([rotateRefreshToken(db, token), rotateRefreshToken(db, token)]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok)).toEqual([{ ok: false, reason: "reused" }]);
    const winner = results.find((r) => r.ok);
    if (!winner?.ok) throw new Error("no winner");
    expect((await rotateRefreshToken(db, winner.token)).ok).toBe(false);
  });

  it("refuses expired, unknown and signed-out tokens", async () => {
    const user = await seedUser();
    const issuedAt = 1_900_000_000_000;
    const old = (await startRefreshFamily(db, user.id, { passedTotp: false }, issuedAt)).token;
    expect(await rotateRefreshToken(db, old, issuedAt + REFRESH_TOKEN_TTL_MS)).toEqual({ ok: false, reason: "expired" });
    expect(await rotateRefreshToken(db, "x".repeat(43))).toEqual({ ok: false, reason: "unknown" });

    const signedOut = (await startRefreshFamily(db, user.id, { passedTotp: false })).token;
    expect(await revokeRefreshToken(db, signedOut)).toEqual({ userId: user.id, family: expect.any(String) });
    expect(await rotateRefreshToken(db, signedOut)).toEqual({ ok: false, reason: "revoked" });
    expect(await revokeRefreshToken(db, "y".repeat(43))).toBeNull();
  });

  it("ends every session of a user at once", async () => {
    const user = await seedUser();
    const bystander = await seedUser();
    const tokens = await Promise.all([1, 2, 3].map(async () => (await startRefreshFamily(db, user.id, { passedTotp: false })).token));
    const theirs = (await startRefreshFamily(db, bystander.id, { passedTotp: false })).token;
    await revokeAllRefreshTokens(db, user.id);
    for (const token of tokens) expect((await rotateRefreshToken(db, token)).ok).toBe(false);
    expect((await rotateRefreshToken(db, theirs)).ok).toBe(true);
  });
});
