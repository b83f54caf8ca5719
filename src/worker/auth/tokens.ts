import { type CryptoKey, errors, importJWK, type JWTPayload, jwtVerify, SignJWT } from "jose";
import type { IdClaims } from "../../shared/auth";

/**
 * ID tokens: ES256 JWTs signed with our private key. Verification pins the algorithm, issuer,
 * audience and type, so a token minted for anything else (or `alg: none`) never passes.
 */
export const ID_TOKEN_TTL_SECONDS = 3600;
export const JWT_ALG = "ES256";
export const JWT_ISSUER = "blockpilot";
export const JWT_AUDIENCE = "blockpilot-app";
export const JWT_TYPE = "id+jwt";

/** What the SPA needs from the token itself (the claims but the expiry, which signing sets); the rest comes from GET /api/flex/v1/user. */
export type IdTokenFields = Omit<IdClaims, "exp">;
export type IdTokenClaims = JWTPayload & IdTokenFields;

// Keys are imported once per isolate and reused; the JWK text is the cache key so a rotated secret takes effect.
const keyCache = new Map<string, Promise<CryptoKey>>();
function key(jwkText: string): Promise<CryptoKey> {
  let cached = keyCache.get(jwkText);
  if (!cached) {
    cached = importJWK(JSON.parse(jwkText), JWT_ALG) as Promise<CryptoKey>;
    keyCache.set(jwkText, cached);
  }
  return cached;
}

export async function signIdToken(env: Pick<Env, "JWT_PRIVATE_JWK">, claims: IdTokenFields, now = Date.now()): Promise<string> {
  const iat = Math.floor(now / 1000);
  return new SignJWT({ ...claims })
    .setProtectedHeader({ alg: JWT_ALG, typ: JWT_TYPE })
    .setIssuer(JWT_ISSUER)
    .setAudience(JWT_AUDIENCE)
    .setSubject(claims.sub)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ID_TOKEN_TTL_SECONDS)
    .sign(await key(env.JWT_PRIVATE_JWK));
}

export type VerifyResult = { ok: true; claims: IdTokenClaims } | { ok: false; reason: "expired" | "invalid" };

export async function verifyIdToken(env: Pick<Env, "JWT_PUBLIC_JWK">, token: string): Promise<VerifyResult> {
  try {
    const { payload } = await jwtVerify(token, await key(env.JWT_PUBLIC_JWK), {
      algorithms: [JWT_ALG],
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
      typ: JWT_TYPE,
      requiredClaims: ["sub", "sid", "exp", "iat"],
    });
    if (typeof payload.sid !== "string" || typeof payload.sub !== "string") return { ok: false, reason: "invalid" };
    return { ok: true, claims: payload as IdTokenClaims };
  } catch (err) {
    if (err instanceof errors.JWTExpired) return { ok: false, reason: "expired" };
    return { ok: false, reason: "invalid" };
  }
}
