/**
 * A push message's body, encrypted for one browser: aes128gcm (RFC 8188) with the keys Web Push
 * derives (RFC 8291), on WebCrypto. Every message gets a fresh sender key pair and salt; a test may
 * hand in its own to reproduce RFC 8291's Appendix A.
 */
import { base64url } from "jose";

/** One record holds the whole message: 4096 bytes is what every push service accepts. */
const RECORD_SIZE = 4096;
/** The last record's padding delimiter (RFC 8188, section 2). */
const LAST_RECORD = 0x02;
/** 16 bytes of salt, 4 of record size, 1 of key length, 65 of the sender's public key. */
const HEADER_LENGTH = 16 + 4 + 1 + 65;
const TAG_LENGTH = 16;
/** The largest plaintext one record carries (the delimiter and the tag take the rest). */
export const MAX_PUSH_PLAINTEXT = RECORD_SIZE - HEADER_LENGTH - TAG_LENGTH - 1;

const text = new TextEncoder();
const ECDH = { name: "ECDH", namedCurve: "P-256" } as const;

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

async function hkdf(salt: Uint8Array<ArrayBuffer>, ikm: Uint8Array<ArrayBuffer>, info: Uint8Array, bytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const key = await crypto.subtle.importKey("raw", ikm, "HKDF", false, ["deriveBits"]);
  return new Uint8Array(await crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt, info: new Uint8Array(info) }, key, bytes * 8));
}

/** The browser's keys as PushSubscription.toJSON() gives them (base64url). */
export type BrowserKeys = { p256dh: string; auth: string };

/** A sender key pair and salt to use instead of fresh ones (RFC 8291's worked example). */
export type FixedSenderKeys = { keys: CryptoKeyPair; salt: Uint8Array<ArrayBuffer> };

/**
 * The body of a push message: the RFC 8188 header (salt, record size, the sender's public key)
 * and one record of `plaintext` with its delimiter, encrypted with the content key and nonce
 * derived from an ECDH between a sender key pair and the browser's key, and the browser's auth
 * secret. Throws on keys that are not a P-256 point and a 16-byte secret, or a plaintext over one record.
 */
export async function encryptPushMessage(plaintext: Uint8Array, browser: BrowserKeys, fixed?: FixedSenderKeys): Promise<Uint8Array<ArrayBuffer>> {
  if (plaintext.length > MAX_PUSH_PLAINTEXT) throw new Error(`A push message carries at most ${MAX_PUSH_PLAINTEXT} bytes`);
  const uaPublic = new Uint8Array(base64url.decode(browser.p256dh));
  const authSecret = new Uint8Array(base64url.decode(browser.auth));
  if (uaPublic.length !== 65 || uaPublic[0] !== 0x04) throw new Error("p256dh must be an uncompressed P-256 point");
  if (authSecret.length !== 16) throw new Error("auth must be 16 bytes");
  const sender = fixed?.keys ?? ((await crypto.subtle.generateKey(ECDH, true, ["deriveBits"])) as CryptoKeyPair);
  const salt = fixed?.salt ?? crypto.getRandomValues(new Uint8Array(16));
  const asPublic = new Uint8Array((await crypto.subtle.exportKey("raw", sender.publicKey)) as ArrayBuffer);
  const browserKey = await crypto.subtle.importKey("raw", uaPublic, ECDH, false, []);
  // The runtime's field is `public` (WebCrypto's EcdhKeyDeriveParams); the Workers types spell it `$public`.
  const ecdh = { name: "ECDH", public: browserKey } as unknown as SubtleCryptoDeriveKeyAlgorithm;
  const ecdhSecret = new Uint8Array(await crypto.subtle.deriveBits(ecdh, sender.privateKey, 256));

  // RFC 8291, section 3.4: the input keying material mixes in the auth secret and both public keys.
  const ikm = await hkdf(authSecret, ecdhSecret, concat(text.encode("WebPush: info\0"), uaPublic, asPublic), 32);
  // RFC 8188, section 2.2 and 2.3: the content encryption key and the nonce.
  const cek = await hkdf(salt, ikm, text.encode("Content-Encoding: aes128gcm\0"), 16);
  const nonce = await hkdf(salt, ikm, text.encode("Content-Encoding: nonce\0"), 12);

  const key = await crypto.subtle.importKey("raw", cek, "AES-GCM", false, ["encrypt"]);
  const record = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce }, key, concat(plaintext, new Uint8Array([LAST_RECORD]))));
  const header = new Uint8Array(HEADER_LENGTH);
  header.set(salt, 0);
  new DataView(header.buffer).setUint32(16, RECORD_SIZE);
  header[20] = asPublic.length;
  header.set(asPublic, 21);
  return concat(header, record);
}
