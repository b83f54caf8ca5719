import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { exportJWK, generateKeyPair, importJWK, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { users } from "../db/schema";
import { toBase64Url } from "./password";
import { call, db, json, seedUser, signIn } from "./test-fixtures";
import { JWT_AUDIENCE, JWT_ISSUER, JWT_TYPE, signIdToken } from "./tokens";

/** requireUser, exercised through a real signed-in route. */
const me = (token: string, headers: Record<string, string> = {}) => call("/api/flex/v1/user", { headers: { Authorization: `Bearer ${token}`, ...headers } });

const b64 = (value: unknown) => toBase64Url(new TextEncoder().encode(JSON.stringify(value)));

function claimsFor(user: { id: number; phone: string }) {
  return { sub: String(user.id), phone_number: user.phone, phone_number_verified: true, app: "flex" as const, is_admin: false };
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
    const forged = await new SignJWT(claimsFor(user)).setProtectedHeader({ alg: "HS256", typ: JWT_TYPE }).setIssuer(JWT_ISSUER).setAudience(JWT_AUDIENCE).setIssuedAt().setExpirationTime("1h").sign(secret);
    await expectRejected(forged);
  });

  it("rejects our own key's tokens for another audience, issuer or type", async () => {
    const user = await seedUser();
    const key = await importJWK(JSON.parse(env.JWT_PRIVATE_JWK), "ES256");
    const sign = (options: { aud?: string; iss?: string; typ?: string }) =>
      new SignJWT(claimsFor(user))
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
