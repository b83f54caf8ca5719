import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { decodeJwt, exportJWK, generateKeyPair, importJWK, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { users } from "../db/schema";
import { call, db, json, seedUser, signIn } from "../test/fixtures";
import { toBase64Url } from "./password";
import { JWT_AUDIENCE, JWT_ISSUER, JWT_TYPE, signIdToken } from "./tokens";

/** requireUser, exercised through a real signed-in route. */
const me = (token: string, headers: Record<string, string> = {}) => call("/api/flex/v1/user", { headers: { Authorization: `Bearer ${token}`, ...headers } });

const b64 = (value: unknown) => toBase64Url(new TextEncoder().encode(JSON.stringify(value)));

function claimsFor(user: { id: number; phone: string }) {
  return { sub: String(user.id), sid: "made-up-session", phone_number: user.phone, phone_number_verified: true, app: "flex" as const, is_admin: false };
}

async function expectRejected(token: string, message = "Invalid token") {
  const res = await me(token);
  expect(res.status).toBe(401);
  expect(await json(res)).toEqual({ error: { code: "unauthorized", message } });
}

describe("requireUser", () => {
  it("accepts a token we signed for a user who exists", async () => {
    const user = await seedUser();
    const res = await me((await signIn(user)).idToken);
    expect(res.status).toBe(200);
    expect((await json(res)).Item.id).toBe(user.id);
  });

  it("asks for a token when there is none or the header is not Bearer", async () => {
    expect((await call("/api/flex/v1/user")).status).toBe(401);
    const user = await seedUser();
    const { idToken } = await signIn(user);
    const res = await call("/api/flex/v1/user", { headers: { Authorization: `Basic ${idToken}` } });
    expect(await json(res)).toEqual({ error: { code: "unauthorized", message: "Sign in to continue" } });
  });

  it("rejects a token whose payload was edited", async () => {
    const user = await seedUser();
    const admin = await seedUser({ isAdmin: true });
    const [header, , signature] = (await signIn(user)).idToken.split(".");
    await expectRejected(`${header}.${b64({ ...claimsFor(admin), iss: JWT_ISSUER, aud: JWT_AUDIENCE, iat: 1, exp: 4_000_000_000 })}.${signature}`);
  });

  it("rejects a token whose signature was edited", async () => {
    const user = await seedUser();
    const token = (await signIn(user)).idToken;
    const flipped = token.slice(0, -3) + (token.at(-3) === "A" ? "B" : "A") + token.slice(-2);
    await expectRejected(flipped);
  });

  it("rejects an expired token, saying so", async () => {
    const user = await seedUser();
    const twoHoursAgo = Date.now() - 2 * 3600_000;
    await expectRejected(await signIdToken(env, claimsFor(user), twoHoursAgo), "Session expired");
  });

  it("rejects alg: none", async () => {
    const user = await seedUser();
    const now = Math.floor(Date.now() / 1000);
    const payload = { ...claimsFor(user), iss: JWT_ISSUER, aud: JWT_AUDIENCE, iat: now, exp: now + 3600 };
    await expectRejected(`${b64({ alg: "none", typ: JWT_TYPE })}.${b64(payload)}.`);
    await expectRejected(`${b64({ alg: "none", typ: JWT_TYPE })}.${b64(payload)}`);
  });

  it("rejects a token signed with another key", async () => {
    const user = await seedUser();
    const { privateKey } = await generateKeyPair("ES256");
    const forged = await new SignJWT(claimsFor(user))
      .setProtectedHeader({ alg: "ES256", typ: JWT_TYPE })
      .setIssuer(JWT_ISSUER)
      .setAudience(JWT_AUDIENCE)
      .setSubject(String(user.id))
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(privateKey);
    await expectRejected(forged);
  });

  it("rejects HS256 keyed with our public key (algorithm confusion)", async () => {
    const user = await seedUser();
    const secret = new TextEncoder().encode(env.JWT_PUBLIC_JWK);
    const forged = await new SignJWT(claimsFor(user))
      .setProtectedHeader({ alg: "HS256", typ: JWT_TYPE })
      .setIssuer(JWT_ISSUER)
      .setAudience(JWT_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(secret);
    await expectRejected(forged);
  });

  it("rejects our own key's tokens for another audience, issuer or type", async () => {
    const user = await seedUser();
    const sid = decodeJwt((await signIn(user)).idToken).sid as string;
    const key = await importJWK(JSON.parse(env.JWT_PRIVATE_JWK), "ES256");
    const sign = (options: { aud?: string; iss?: string; typ?: string }) =>
      new SignJWT({ ...claimsFor(user), sid })
        .setProtectedHeader({ alg: "ES256", typ: options.typ ?? JWT_TYPE })
        .setIssuer(options.iss ?? JWT_ISSUER)
        .setAudience(options.aud ?? JWT_AUDIENCE)
        .setIssuedAt()
        .setExpirationTime("1h")
        .sign(key);
    expect((await me(await sign({}))).status).toBe(200);
    await expectRejected(await sign({ aud: "another-app" }));
    await expectRejected(await sign({ iss: "someone-else" }));
    await expectRejected(await sign({ typ: "JWT" }));
  });

  it("rejects a valid token once its user is gone", async () => {
    const user = await seedUser();
    const { idToken } = await signIn(user);
    await db.delete(users).where(eq(users.id, user.id));
    await expectRejected(idToken);
  });

  it("rejects garbage", async () => {
    await expectRejected("not-a-jwt");
    await expectRejected("a.b.c");
    const jwk = await exportJWK((await generateKeyPair("ES256", { extractable: true })).publicKey);
    await expectRejected(b64(jwk));
  });
});

describe("requireUser and the session behind a token", () => {
  const signOut = (refreshToken: string, global = false, idToken?: string) =>
    call("/api/auth/sign-out", { body: { refreshToken, global }, headers: idToken ? { Authorization: `Bearer ${idToken}` } : {} });

  it("ends an ID token the moment its session signs out; the user's other sessions go on", async () => {
    const user = await seedUser();
    const phone = await signIn(user);
    const laptop = await signIn(user);
    expect((await me(phone.idToken)).status).toBe(200);
    expect((await signOut(phone.refreshToken)).status).toBeLessThan(300);
    await expectRejected(phone.idToken, "Session ended. Sign in again");
    expect((await me(laptop.idToken)).status).toBe(200);
  });

  it("ends every ID token of the user on a global sign-out", async () => {
    const user = await seedUser();
    const a = await signIn(user);
    const b = await signIn(user);
    expect((await signOut(a.refreshToken, true, a.idToken)).status).toBe(200);
    await expectRejected(a.idToken, "Session ended. Sign in again");
    await expectRejected(b.idToken, "Session ended. Sign in again");
  });

  it("keeps the ID token through a refresh, and ends it when a rotated refresh token is replayed", async () => {
    const user = await seedUser();
    const first = await signIn(user);
    const refreshed = await json(await call("/api/auth/refresh", { body: { refreshToken: first.refreshToken } }));
    expect((await me(first.idToken)).status).toBe(200);
    expect((await me(refreshed.tokens.idToken)).status).toBe(200);
    // The first refresh token was rotated: presenting it again revokes the family.
    expect((await call("/api/auth/refresh", { body: { refreshToken: first.refreshToken } })).status).toBe(401);
    await expectRejected(first.idToken, "Session ended. Sign in again");
    await expectRejected(refreshed.tokens.idToken, "Session ended. Sign in again");
  });

  it("refuses a token with no session, or with another user's session", async () => {
    const user = await seedUser();
    const other = await seedUser();
    const { sid: _unused, ...noSid } = claimsFor(user);
    await expectRejected(await signIdToken(env, noSid as unknown as ReturnType<typeof claimsFor>));
    const theirs = decodeJwt((await signIn(other)).idToken).sid as string;
    await expectRejected(await signIdToken(env, { ...claimsFor(user), sid: theirs }), "Session ended. Sign in again");
  });
});
