/**
 * One Web Push message to one browser (RFC 8030): the VAPID header (RFC 8292), the aes128gcm body
 * (push-encryption.ts) and the delivery headers, POSTed to the subscription's endpoint; the push
 * service's answer read as sent, gone (the subscription is dead), try again later, or failed.
 */
import { type CryptoKey, importJWK, SignJWT } from "jose";
import { callProvider, providerTimeoutMs, retryAfterSeconds } from "../providers/http-call";
import { type BrowserKeys, encryptPushMessage } from "./push-encryption";

/** The VAPID JWT's lifetime: RFC 8292 allows at most 24 hours. */
export const VAPID_TOKEN_SECONDS = 12 * 3600;

export type PushTarget = BrowserKeys & { endpoint: string };
export type PushDelivery = {
  /** How long the push service keeps the message for a browser that is offline, in seconds. */
  ttl: number;
  urgency: "very-low" | "low" | "normal" | "high";
  /** At most 32 url-safe characters: a message with the same topic replaces one still waiting. */
  topic: string;
};

export type PushOutcome =
  | { kind: "sent" }
  | { kind: "gone"; status: number }
  | { kind: "retry"; reason: string; retryAfterSeconds?: number }
  | { kind: "failed"; reason: string };

type VapidEnv = Pick<Env, "VAPID_PUBLIC_KEY" | "VAPID_PRIVATE_JWK" | "VAPID_SUBJECT">;

// The key is imported once per isolate; the JWK text is the cache key so a rotated secret takes effect.
const keys = new Map<string, Promise<CryptoKey>>();
function signingKey(jwkText: string): Promise<CryptoKey> {
  let key = keys.get(jwkText);
  if (!key) {
    key = importJWK(JSON.parse(jwkText), "ES256") as Promise<CryptoKey>;
    keys.set(jwkText, key);
  }
  return key;
}

/** `vapid t=<JWT>, k=<public key>` for an endpoint: the JWT's audience is the endpoint's origin. */
export async function vapidAuthorization(env: VapidEnv, endpoint: string, now = Date.now()): Promise<string> {
  const jwt = await new SignJWT({ sub: env.VAPID_SUBJECT })
    .setProtectedHeader({ alg: "ES256", typ: "JWT" })
    .setAudience(new URL(endpoint).origin)
    .setExpirationTime(Math.floor(now / 1000) + VAPID_TOKEN_SECONDS)
    .sign(await signingKey(env.VAPID_PRIVATE_JWK));
  return `vapid t=${jwt}, k=${env.VAPID_PUBLIC_KEY}`;
}

/** Sends `payload` (JSON text) to one browser; never throws for what the push service answers. */
export async function sendPush(
  env: VapidEnv & Pick<Env, "PROVIDER_TIMEOUT_MS">,
  target: PushTarget,
  payload: string,
  delivery: PushDelivery,
): Promise<PushOutcome> {
  const body = await encryptPushMessage(new TextEncoder().encode(payload), target);
  const call = await callProvider(
    target.endpoint,
    {
      method: "POST",
      headers: {
        Authorization: await vapidAuthorization(env, target.endpoint),
        "Content-Encoding": "aes128gcm",
        "Content-Type": "application/octet-stream",
        TTL: String(delivery.ttl),
        Urgency: delivery.urgency,
        Topic: delivery.topic,
      },
      body,
    },
    providerTimeoutMs(env),
  );
  if (!call.ok) return { kind: "retry", reason: call.errorCode };
  const { status } = call.response;
  await call.response.body?.cancel();
  if (status >= 200 && status < 300) return { kind: "sent" };
  // RFC 8030 section 7.3: the subscription has expired or was never there.
  if (status === 404 || status === 410) return { kind: "gone", status };
  if (status === 429 || status >= 500)
    return { kind: "retry", reason: `http_${status}`, retryAfterSeconds: retryAfterSeconds(call.response.headers.get("Retry-After")) };
  return { kind: "failed", reason: `http_${status}` };
}
