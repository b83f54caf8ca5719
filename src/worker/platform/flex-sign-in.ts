/**
 * The Flex app's sign-in hand-off (docs/engine.md, "Connecting"): the driver signs in on the
 * platform's own page, which ends on its landing page with an authorization code; the app then
 * registers as a device with that code and its PKCE verifier. Everything here is pure: the
 * verifier and its challenge, the device serial and client id, the sign-in address, and reading
 * the landing address the driver pastes.
 */
import { toBase64Url } from "../auth/password";

/** The Android app's device type, as the platform's identity service knows it. */
export const FLEX_DEVICE_TYPE = "A1MPSLFC7L5AFK";
/** The app's package name, which the identity bodies carry. */
export const FLEX_APP_NAME = "com.amazon.rabbit";
const CODE_PARAM = "openid.oa2.authorization_code";

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

/** A PKCE verifier: 32 random bytes, base64url (43 characters). */
export function newCodeVerifier(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
}

/** The S256 challenge of a verifier: base64url(SHA-256(verifier)). */
export async function codeChallenge(verifier: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

/** A device serial: 32 random hex characters. */
export function newDeviceSerial(): string {
  return hex(crypto.getRandomValues(new Uint8Array(16)));
}

/** The app's instance id for the capacity calls: an upper-case UUID. */
export function newInstanceId(): string {
  return crypto.randomUUID().toUpperCase();
}

/** The client id: the hex of the ASCII bytes of `serial#DEVICE_TYPE` (the sign-in page takes it as `device:{hex}`). */
export function clientIdOf(serial: string): string {
  return hex(new TextEncoder().encode(`${serial}#${FLEX_DEVICE_TYPE}`));
}

const trimBase = (base: string) => base.replace(/\/+$/, "");

/** The platform's sign-in page for one attempt (its PKCE challenge and the device's client id). */
export function signInUrl(signInBase: string, challenge: string, serial: string, language: "en" | "es"): string {
  const base = trimBase(signInBase);
  const query = new URLSearchParams({
    "openid.ns": "http://specs.openid.net/auth/2.0",
    "openid.mode": "checkid_setup",
    "openid.return_to": `${base}/ap/maplanding`,
    "openid.assoc_handle": "amzn_device_na",
    "openid.identity": "http://specs.openid.net/auth/2.0/identifier_select",
    "openid.claimed_id": "http://specs.openid.net/auth/2.0/identifier_select",
    "openid.ns.oa2": "http://www.amazon.com/ap/ext/oauth/2",
    "openid.oa2.response_type": "code",
    "openid.oa2.code_challenge_method": "S256",
    "openid.oa2.code_challenge": challenge,
    "openid.oa2.client_id": `device:${clientIdOf(serial)}`,
    "openid.oa2.scope": "device_auth_access",
    "openid.ns.pape": "http://specs.openid.net/extensions/pape/1.0",
    "openid.pape.max_auth_age": "0",
    accountStatusPolicy: "P1",
    pageId: "amzn_device_na",
    language: language === "es" ? "es_US" : "en_US",
  });
  return `${base}/ap/signin?${query.toString()}`;
}

export type LandingReading = { ok: true; code: string } | { ok: false; reason: "not_landing" | "no_code" };

/**
 * The authorization code in the address the driver pasted: it must be the platform's landing page
 * (the sign-in base's origin, its path plus /ap/maplanding) and carry the code parameter.
 */
export function readLanding(signInBase: string, pasted: string): LandingReading {
  let url: URL;
  let base: URL;
  try {
    url = new URL(pasted.trim());
    base = new URL(trimBase(signInBase));
  } catch {
    return { ok: false, reason: "not_landing" };
  }
  const landingPath = `${base.pathname.replace(/\/+$/, "")}/ap/maplanding`;
  if (url.origin !== base.origin || url.pathname.replace(/\/+$/, "") !== landingPath) return { ok: false, reason: "not_landing" };
  const code = url.searchParams.get(CODE_PARAM)?.trim() ?? "";
  if (!code || code.length > 2048) return { ok: false, reason: "no_code" };
  return { ok: true, code };
}
