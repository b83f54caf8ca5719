/**
 * The fake push service's own checks (server.ts), in plain Node: what it refuses in a VAPID header
 * is what the Worker tests rely on it to refuse, and it decrypts RFC 8291's worked example.
 */
import { createECDH, generateKeyPairSync, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decryptPushBody, vapidProblem } from "./server.ts";

const origin = "http://127.0.0.1:9999";
const b64 = (value: string | Buffer) => Buffer.from(value).toString("base64url");

function header(claims: Record<string, unknown>, keys = generateKeyPairSync("ec", { namedCurve: "P-256" }), k?: string) {
  const jwk = keys.publicKey.export({ format: "jwk" });
  const point = b64(Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, "base64url"), Buffer.from(jwk.y!, "base64url")]));
  const signed = `${b64(JSON.stringify({ alg: "ES256", typ: "JWT" }))}.${b64(JSON.stringify(claims))}`;
  const signature = b64(sign("sha256", Buffer.from(signed), { key: keys.privateKey, dsaEncoding: "ieee-p1363" }));
  return `vapid t=${signed}.${signature}, k=${k ?? point}`;
}

describe("vapidProblem", () => {
  const now = Date.now();
  const good = { aud: origin, exp: Math.floor(now / 1000) + 3600, sub: "mailto:support@example.com" };
  it("takes a good header", () => {
    expect(vapidProblem(header(good), origin, now)).toBeNull();
  });
  it.each([
    ["another audience", { ...good, aud: "https://other.example" }, /aud/],
    ["an expired token", { ...good, exp: Math.floor(now / 1000) - 1 }, /exp/],
    ["a token over 24 hours", { ...good, exp: Math.floor(now / 1000) + 86_401 }, /24 hours/],
    ["no contact", { aud: good.aud, exp: good.exp }, /sub/],
  ])("refuses %s", (_name, claims, why) => {
    expect(vapidProblem(header(claims), origin, now)).toMatch(why);
  });
  it("refuses a signature by another key than k, and a header of another scheme", () => {
    const other = generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({ format: "jwk" });
    const k = b64(Buffer.concat([Buffer.from([4]), Buffer.from(other.x!, "base64url"), Buffer.from(other.y!, "base64url")]));
    expect(vapidProblem(header(good, undefined, k), origin, now)).toMatch(/signature/);
    expect(vapidProblem("WebPush abc", origin, now)).toMatch(/vapid/);
  });
});

describe("decryptPushBody", () => {
  it("decrypts RFC 8291 Appendix A's body with its user agent's keys", () => {
    const ecdh = createECDH("prime256v1");
    ecdh.setPrivateKey(Buffer.from("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94", "base64url"));
    const body = Buffer.from(
      "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN",
      "base64url",
    );
    expect(decryptPushBody(body, ecdh, Buffer.from("BTBZMqHH6r4Tts7J_aSIgg", "base64url"))).toBe("When I grow up, I want to be a watermelon");
  });
});
