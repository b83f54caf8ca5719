/**
 * Password hashing: PBKDF2-SHA256 through WebCrypto, a random salt per user and a server-side
 * pepper. The stored string describes itself (`pbkdf2-sha256$<iterations>$<salt>$<hash>`, base64url)
 * so the cost can be raised later and old hashes still verify.
 *
 * Cloudflare's production runtime rejects PBKDF2 above 100,000 iterations (the local runtime does
 * not), so the count is pinned here and a test asserts the ceiling.
 */
export const PBKDF2_ITERATIONS = 100_000;
export const PBKDF2_MAX_ITERATIONS = 100_000;
/**
 * Verifying against this when the phone is unknown (or has no password) costs the same PBKDF2
 * work as a real check, so response time does not reveal whether an account exists.
 */
export const ABSENT_ACCOUNT_HASH = `pbkdf2-sha256$${PBKDF2_ITERATIONS}$c2lnbi1pbi10aW1pbmc$2n8PqzJ0k1wR3mS8v5Y7tA4uB6cD9eF0gH1iJ2kL3mN`;
const SALT_BYTES = 16;
const HASH_BYTES = 32;

const encoder = new TextEncoder();

export function toBase64Url(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let binary = "";
  for (const b of view) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** The pepper keys an HMAC of the password, so a stolen table alone cannot be brute-forced. */
async function pepperedInput(password: string, pepper: string): Promise<ArrayBuffer> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(pepper), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return crypto.subtle.sign("HMAC", key, encoder.encode(password));
}

async function derive(password: string, pepper: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<Uint8Array> {
  const base = await crypto.subtle.importKey("raw", await pepperedInput(password, pepper), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, base, HASH_BYTES * 8);
  return new Uint8Array(bits);
}

export async function hashPassword(password: string, pepper: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const hash = await derive(password, pepper, salt, PBKDF2_ITERATIONS);
  return `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${toBase64Url(salt)}$${toBase64Url(hash)}`;
}

/** Constant-time comparison of two byte strings of any length. */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

export async function verifyPassword(password: string, stored: string, pepper: string): Promise<boolean> {
  const [scheme, iterationsText, saltText, hashText] = stored.split("$");
  const iterations = Number(iterationsText);
  if (scheme !== "pbkdf2-sha256" || !saltText || !hashText || !Number.isInteger(iterations)) return false;
  if (iterations < 1 || iterations > PBKDF2_MAX_ITERATIONS) return false;
  const actual = await derive(password, pepper, fromBase64Url(saltText), iterations);
  return timingSafeEqual(actual, fromBase64Url(hashText));
}

/** Does a stored hash use less than today's cost, so it should be re-hashed at the next sign-in? */
export function needsRehash(stored: string): boolean {
  return Number(stored.split("$")[1]) !== PBKDF2_ITERATIONS;
}
