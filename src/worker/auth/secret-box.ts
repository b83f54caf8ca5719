import { fromBase64Url, toBase64Url } from "./password.ts";

/**
 * Secrets stored at rest (TOTP seeds): AES-256-GCM with a key from the MFA_ENCRYPTION_KEY secret
 * (32 bytes, base64). Stored as `v1.<iv>.<ciphertext>` in base64url, so the scheme can change later.
 */
async function aesKey(base64Key: string): Promise<CryptoKey> {
  const raw = Uint8Array.from(atob(base64Key), (c) => c.charCodeAt(0));
  if (raw.length !== 32) throw new Error("MFA_ENCRYPTION_KEY must be 32 bytes, base64-encoded");
  return crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
}

export async function sealSecret(plain: string, base64Key: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await aesKey(base64Key), new TextEncoder().encode(plain));
  return `v1.${toBase64Url(iv)}.${toBase64Url(sealed)}`;
}

export async function openSecret(stored: string, base64Key: string): Promise<string> {
  const [version, ivText, dataText] = stored.split(".");
  if (version !== "v1" || !ivText || !dataText) throw new Error("Unknown sealed-secret format");
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromBase64Url(ivText) }, await aesKey(base64Key), fromBase64Url(dataText));
  return new TextDecoder().decode(plain);
}
