/**
 * The push body's encryption, proven by RFC 8291's worked example (Appendix A): the same sender
 * keys, salt, browser keys and plaintext must give exactly the body the RFC prints.
 */
import { base64url } from "jose";
import { describe, expect, it } from "vitest";
import { encryptPushMessage, MAX_PUSH_PLAINTEXT } from "./push-encryption";

// RFC 8291, Appendix A (line breaks removed).
const RFC8291 = {
  plaintext: "When I grow up, I want to be a watermelon",
  asPublic: "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8",
  asPrivate: "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw",
  uaPublic: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
  salt: "DGv6ra1nlYgDCS1FRnbzlw",
  authSecret: "BTBZMqHH6r4Tts7J_aSIgg",
  body: "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN",
};

async function rfcSenderKeys(): Promise<CryptoKeyPair> {
  const point = base64url.decode(RFC8291.asPublic);
  const x = base64url.encode(point.slice(1, 33));
  const y = base64url.encode(point.slice(33, 65));
  const ecdh = { name: "ECDH", namedCurve: "P-256" } as const;
  return {
    privateKey: await crypto.subtle.importKey("jwk", { kty: "EC", crv: "P-256", x, y, d: RFC8291.asPrivate }, ecdh, true, ["deriveBits"]),
    publicKey: await crypto.subtle.importKey("raw", point, ecdh, true, []),
  };
}

describe("encryptPushMessage", () => {
  it("gives RFC 8291 Appendix A's body for its keys, salt and plaintext", async () => {
    const body = await encryptPushMessage(
      new TextEncoder().encode(RFC8291.plaintext),
      { p256dh: RFC8291.uaPublic, auth: RFC8291.authSecret },
      { keys: await rfcSenderKeys(), salt: base64url.decode(RFC8291.salt) as Uint8Array<ArrayBuffer> },
    );
    expect(base64url.encode(body)).toBe(RFC8291.body);
  });

  it("uses a fresh salt and sender key for every message", async () => {
    const browser = { p256dh: RFC8291.uaPublic, auth: RFC8291.authSecret };
    const plaintext = new TextEncoder().encode(RFC8291.plaintext);
    const [a, b] = await Promise.all([encryptPushMessage(plaintext, browser), encryptPushMessage(plaintext, browser)]);
    expect(a.length).toBe(base64url.decode(RFC8291.body).length);
    expect(base64url.encode(a.slice(0, 16))).not.toBe(base64url.encode(b.slice(0, 16)));
    expect(base64url.encode(a.slice(21, 86))).not.toBe(base64url.encode(b.slice(21, 86)));
  });

  it("refuses keys that are not a P-256 point and a 16-byte secret, and a message over one record", async () => {
    const plaintext = new TextEncoder().encode("x");
    await expect(encryptPushMessage(plaintext, { p256dh: RFC8291.authSecret, auth: RFC8291.authSecret })).rejects.toThrow(/P-256/);
    await expect(encryptPushMessage(plaintext, { p256dh: RFC8291.uaPublic, auth: RFC8291.salt.slice(0, 10) })).rejects.toThrow(/16 bytes/);
    await expect(encryptPushMessage(new Uint8Array(MAX_PUSH_PLAINTEXT + 1), { p256dh: RFC8291.uaPublic, auth: RFC8291.authSecret })).rejects.toThrow(/at most/);
  });
});
