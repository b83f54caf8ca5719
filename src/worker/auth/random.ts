import { toBase64Url } from "./password";

/** An opaque, unguessable identifier: `bytes` CSPRNG bytes as base64url (32 bytes → 43 characters). */
export function randomToken(bytes = 32): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/**
 * A uniformly random integer in [0, bound). Values from the top of the 32-bit range that would
 * make some results more likely than others (modulo bias) are drawn again.
 */
export function randomBelow(bound: number): number {
  if (!Number.isInteger(bound) || bound < 1 || bound > 2 ** 32) throw new RangeError("bound must be an integer in [1, 2^32]");
  const limit = 2 ** 32 - (2 ** 32 % bound);
  const buffer = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(buffer);
    if (buffer[0]! < limit) return buffer[0]! % bound;
  }
}

/** `length` characters drawn uniformly from `alphabet`. */
export function randomString(alphabet: string, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[randomBelow(alphabet.length)];
  return out;
}

/** A 6-digit verification code, leading zeros kept. */
export function randomCode(): string {
  return String(randomBelow(1_000_000)).padStart(6, "0");
}

// No 0/O, 1/I/L: invite codes are read aloud and typed from screenshots.
const INVITE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/** A driver's own invite code: 8 characters, about 2^39 possibilities. */
export function randomInviteCode(): string {
  return randomString(INVITE_ALPHABET, 8);
}

/**
 * A temporary password for an account an administrator creates: 14 characters that always meet
 * the password rules (an uppercase letter, a lowercase letter, a digit and a special character).
 */
export function randomTemporaryPassword(): string {
  const upper = "ABCDEFGHJKMNPQRSTUVWXYZ";
  const lower = "abcdefghijkmnpqrstuvwxyz";
  const digits = "23456789";
  const special = "#$%&*+-=?@";
  const chars = [
    randomString(upper, 1),
    randomString(lower, 1),
    randomString(digits, 1),
    randomString(special, 1),
    ...randomString(upper + lower + digits + special, 10),
  ];
  // Fisher–Yates so the required classes are not always in the first four places.
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomBelow(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join("");
}
