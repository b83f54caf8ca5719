/**
 * Provider webhook signatures. Both are HMACs checked with WebCrypto's verify, which compares in
 * constant time: an attacker learns nothing from how long a wrong signature takes to refuse.
 */

const encoder = new TextEncoder();

function hmacKey(secret: string, hash: "SHA-1" | "SHA-256") {
  return crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash }, false, ["sign", "verify"]);
}

/** Canonical base64 only: atob also takes unpadded or oddly spaced text, which Twilio never sends. */
function base64ToBytes(b64: string): Uint8Array | null {
  try {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    return btoa(String.fromCharCode(...bytes)) === b64 ? bytes : null;
  } catch {
    return null;
  }
}

function hexToBytes(hex: string): Uint8Array | null {
  if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) return null;
  return Uint8Array.from(hex.match(/../g)!, (h) => parseInt(h, 16));
}

/**
 * What Twilio signs: the full URL it requested, then each POST parameter's name and value, names
 * sorted (case-sensitive, byte order), repeated names once per value in value order.
 */
export function twilioSignedData(url: string, params: URLSearchParams): string {
  let data = url;
  for (const name of [...new Set(params.keys())].sort()) {
    for (const value of params.getAll(name).sort()) data += name + value;
  }
  return data;
}

/** X-Twilio-Signature: base64 HMAC-SHA1 of twilioSignedData with the account's auth token. */
export async function twilioSignature(authToken: string, url: string, params: URLSearchParams): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(authToken, "SHA-1"), encoder.encode(twilioSignedData(url, params)));
  return btoa(String.fromCharCode(...new Uint8Array(mac)));
}

export async function verifyTwilioSignature(authToken: string, url: string, params: URLSearchParams, header: string | undefined | null): Promise<boolean> {
  const signature = header ? base64ToBytes(header.trim()) : null;
  if (!signature || !authToken) return false;
  return crypto.subtle.verify("HMAC", await hmacKey(authToken, "SHA-1"), signature, encoder.encode(twilioSignedData(url, params)));
}

/** X-Hub-Signature-256: "sha256=" and the hex HMAC-SHA256 of the raw body with the app secret. */
export async function verifyMetaSignature(appSecret: string, body: ArrayBuffer, header: string | undefined | null): Promise<boolean> {
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header?.trim() ?? "");
  const signature = match ? hexToBytes(match[1]!) : null;
  if (!signature || !appSecret) return false;
  return crypto.subtle.verify("HMAC", await hmacKey(appSecret, "SHA-256"), signature, body);
}

/** Equality of two secrets without a timing signal (both sides hashed first, so lengths match). */
export async function secretsEqual(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([crypto.subtle.digest("SHA-256", encoder.encode(a)), crypto.subtle.digest("SHA-256", encoder.encode(b))]);
  const xa = new Uint8Array(x);
  const ya = new Uint8Array(y);
  let diff = 0;
  for (let i = 0; i < xa.length; i++) diff |= xa[i]! ^ ya[i]!;
  return diff === 0 && a.length > 0;
}
