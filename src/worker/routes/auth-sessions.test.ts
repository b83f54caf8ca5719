import { and, eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import { describe, expect, it } from "vitest";
import { auditLog, refreshTokens, users } from "../db/schema";
import { call, db, json, seedUser, signIn, uniquePhone } from "../test/fixtures";

describe("POST /api/auth/refresh", () => {
  it("rotates the refresh token and answers a fresh ID token reflecting the account now", async () => {
    const user = await seedUser();
    const first = await signIn(user);
    const newPhone = uniquePhone();
    await db.update(users).set({ phone: newPhone }).where(eq(users.id, user.id));

    const res = await call("/api/auth/refresh", { body: { refreshToken: first.refreshToken } });
    expect(res.status).toBe(200);
    const { tokens } = await json(res);
    expect(tokens.refreshToken).not.toBe(first.refreshToken);
    expect(decodeJwt(tokens.idToken).phone_number).toBe(newPhone);
    expect(tokens.expiresIn).toBe(3600);
  });

  it("revokes the family when a rotated token is presented again, and answers 401", async () => {
    const user = await seedUser();
    const first = await signIn(user);
    const second = (await json(await call("/api/auth/refresh", { body: { refreshToken: first.refreshToken } }))).tokens;
    const otherDevice = await signIn(user);

    const replay = await call("/api/auth/refresh", { body: { refreshToken: first.refreshToken } });
    expect(replay.status).toBe(401);
    expect(await json(replay)).toEqual({ error: { code: "unauthorized", message: "Session revoked. Sign in again", details: { reason: "reused" } } });
    // The legitimate holder of the newest token is signed out too…
    expect((await call("/api/auth/refresh", { body: { refreshToken: second.refreshToken } })).status).toBe(401);
    // …but not the user's other sessions.
    expect((await call("/api/auth/refresh", { body: { refreshToken: otherDevice.refreshToken } })).status).toBe(200);
  });

  it("answers 401 for unknown and expired tokens, 400 for malformed bodies", async () => {
    const user = await seedUser();
    const tokens = await signIn(user);
    await db
      .update(refreshTokens)
      .set({ expiresAt: Date.now() - 1 })
      .where(eq(refreshTokens.userId, user.id));
    expect((await call("/api/auth/refresh", { body: { refreshToken: tokens.refreshToken } })).status).toBe(401);
    expect((await call("/api/auth/refresh", { body: { refreshToken: "A".repeat(43) } })).status).toBe(401);
    expect((await call("/api/auth/refresh", { body: {} })).status).toBe(400);
    expect((await call("/api/auth/refresh", { body: { refreshToken: 42 } })).status).toBe(400);
  });
});

describe("POST /api/auth/sign-out", () => {
  it("revokes the session's refresh token", async () => {
    const user = await seedUser();
    const tokens = await signIn(user);
    const res = await call("/api/auth/sign-out", { body: { refreshToken: tokens.refreshToken } });
    expect(await json(res)).toEqual({ signedOut: true });
    expect((await call("/api/auth/refresh", { body: { refreshToken: tokens.refreshToken } })).status).toBe(401);
  });

  it("is idempotent for tokens it does not know", async () => {
    expect((await call("/api/auth/sign-out", { body: { refreshToken: "B".repeat(43) } })).status).toBe(200);
  });

  it("signs out everywhere only for a caller with a valid ID token", async () => {
    const user = await seedUser();
    const bystander = await seedUser();
    const sessions = [await signIn(user), await signIn(user), await signIn(user)];
    const theirs = await signIn(bystander);

    const anonymous = await call("/api/auth/sign-out", { body: { refreshToken: sessions[0]!.refreshToken, global: true } });
    expect(anonymous.status).toBe(401);
    expect((await call("/api/auth/refresh", { body: { refreshToken: sessions[1]!.refreshToken } })).status).toBe(200);

    const fresh = [await signIn(user), await signIn(user)];
    const res = await call("/api/auth/sign-out", { body: { refreshToken: fresh[0]!.refreshToken, global: true }, token: fresh[0]!.idToken });
    expect(res.status).toBe(200);
    for (const s of fresh) expect((await call("/api/auth/refresh", { body: { refreshToken: s.refreshToken } })).status).toBe(401);
    expect((await call("/api/auth/refresh", { body: { refreshToken: theirs.refreshToken } })).status).toBe(200);
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.actorId, user.id), eq(auditLog.action, "auth.sign_out_global"))),
    ).toHaveLength(1);
  });

  it("an ended session's ID token cannot sign its user out everywhere, as it can do nothing else", async () => {
    const user = await seedUser();
    const old = await signIn(user);
    // That session ends (signed out, or a credential change); its ID token is still within its hour.
    expect((await call("/api/auth/sign-out", { body: { refreshToken: old.refreshToken } })).status).toBe(200);
    const current = await signIn(user);
    const replay = await call("/api/auth/sign-out", { body: { refreshToken: old.refreshToken, global: true }, token: old.idToken });
    expect(replay.status).toBe(401);
    expect(await json(replay)).toMatchObject({ error: { code: "unauthorized", message: "Session ended. Sign in again" } });
    // The user's live session goes on, and no global sign-out was recorded.
    expect((await call("/api/flex/v1/user", { token: current.idToken })).status).toBe(200);
    expect((await call("/api/auth/refresh", { body: { refreshToken: current.refreshToken } })).status).toBe(200);
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.actorId, user.id), eq(auditLog.action, "auth.sign_out_global"))),
    ).toEqual([]);
  });
});
