import { z } from "zod";

/**
 * The Worker's configuration ([vars] in wrangler.toml and the secrets), validated once per isolate
 * before any request, queue batch or cron run is served. Everywhere: names are known and numbers
 * are numbers. In production also: no embedded provider (the outbox keeps every code and
 * temporary password in D1 for admins to read; the local checkout takes no money), every secret
 * set to a real value, Stripe's live keys, https origins, and a real delivery platform (not the fake one `npm run dev`
 * serves on loopback, nor the ".invalid" placeholders wrangler.toml's production environment ships).
 * A configuration that fails answers 503 to everything and says why in the log, so a bad deploy is
 * loud at once instead of sending nothing (or sending into the outbox) later.
 */

const ENVIRONMENTS = ["development", "test", "production"] as const;
export const SMS_PROVIDERS = ["outbox", "twilio"] as const;
export const WHATSAPP_PROVIDERS = ["outbox", "cloud-api"] as const;
export const PAYMENTS_PROVIDERS = ["local", "stripe"] as const;

/** A number written in a [vars] string: digits (and a decimal point where allowed), nothing else. */
function numberVar(options: { integer: boolean; min: number; max: number }) {
  const pattern = options.integer ? /^\d+$/ : /^\d+(\.\d+)?$/;
  return z
    .string()
    .trim()
    .regex(pattern, options.integer ? "must be a whole number" : "must be a number")
    .transform(Number)
    .pipe(z.number().min(options.min).max(options.max));
}

const secret = z.string().min(1, "is missing");
const url = z.url({ protocol: /^https?$/, message: "must be an http(s) URL" });

/**
 * The longest APP_ORIGIN allowed: every link we text (an invitation's sign-up link) starts with it,
 * and an invitation with the longest first name must still fit one SMS segment (billing/notify.ts).
 */
export const APP_ORIGIN_MAX_LENGTH = 32;
/** Where the SPA is served: the one origin every link we hand out or text is built from (`appUrl`), never a request's. */
const appOrigin = url
  .transform((value) => value.replace(/\/$/, ""))
  .refine((value) => new URL(value).origin === value, "must be an origin: scheme, host and port, no path")
  .refine((value) => value.length <= APP_ORIGIN_MAX_LENGTH, `must be at most ${APP_ORIGIN_MAX_LENGTH} characters (texted links must fit one SMS)`);

const configSchema = z.object({
  ENVIRONMENT: z.enum(ENVIRONMENTS, { message: `must be one of ${ENVIRONMENTS.join(", ")}` }),
  APP_VERSION: z.string().min(1),
  APP_ORIGIN: appOrigin,
  SMS_PROVIDER: z.enum(SMS_PROVIDERS, { message: `must be one of ${SMS_PROVIDERS.join(", ")}` }),
  WHATSAPP_PROVIDER: z.enum(WHATSAPP_PROVIDERS, { message: `must be one of ${WHATSAPP_PROVIDERS.join(", ")}` }),
  PAYMENTS_PROVIDER: z.enum(PAYMENTS_PROVIDERS, { message: `must be one of ${PAYMENTS_PROVIDERS.join(", ")}` }),
  STRIPE_API_BASE: url,
  RESELLER_COMMISSION_PERCENT: numberVar({ integer: false, min: 0, max: 100 }),
  TWILIO_API_BASE: url,
  WHATSAPP_API_BASE: url,
  SEND_RATE_PER_SECOND: numberVar({ integer: false, min: 0.01, max: 1000 }),
  PROVIDER_TIMEOUT_MS: numberVar({ integer: true, min: 100, max: 60_000 }),
  CALLBACK_WAIT_SECONDS: numberVar({ integer: true, min: 1, max: 3600 }),
  SEND_LEASE_SECONDS: numberVar({ integer: true, min: 5, max: 3600 }),
  REQUEUE_AFTER_SECONDS: numberVar({ integer: true, min: 5, max: 3600 }),
  CODE_SMS_HOURLY_BUDGET: numberVar({ integer: true, min: 1, max: 1_000_000 }),
  FLEX_SIGN_IN_BASE: url,
  FLEX_IDENTITY_BASE: url,
  FLEX_CAPACITY_BASE: url,
  FLEX_APP_BUILD: z.string().regex(/^\d{1,12}$/, "must be the app's numeric build"),
  FLEX_APP_VERSION: z.string().regex(/^\d+(\.\d+){1,3}$/, "must be a version like 3.110.0"),
  SPARK_PLATFORM_API_BASE: url,
  PLATFORM_CHECK_IN: z.enum(["modelled", "off"], { message: "must be modelled or off" }),
  PLATFORM_TIMEOUT_MS: numberVar({ integer: true, min: 100, max: 60_000 }),
  // Below 250 ms the engine would poll faster than any platform allows (docs/engine.md).
  CAPTURE_POLL_INTERVAL_MS: numberVar({ integer: true, min: 250, max: 3_600_000 }),
  // The platform's lockout lasts about 30 minutes (docs/engine.md, "Pacing"); tests shorten it.
  CAPTURE_LOCKOUT_MS: numberVar({ integer: true, min: 500, max: 4 * 3_600_000 }),
  OWNER_NAME: z.string(),
  CHAT_WIDGET_URL: z.union([z.literal(""), url]),
  JWT_PRIVATE_JWK: secret,
  JWT_PUBLIC_JWK: secret,
  PASSWORD_PEPPER: secret,
  MFA_ENCRYPTION_KEY: secret,
  CHAT_HASH_SECRET: secret,
  TWILIO_ACCOUNT_SID: z.string(),
  TWILIO_AUTH_TOKEN: z.string(),
  TWILIO_FROM: z.string(),
  WHATSAPP_TOKEN: z.string(),
  WHATSAPP_PHONE_NUMBER_ID: z.string(),
  WHATSAPP_BUSINESS_ACCOUNT_ID: z.string(),
  WHATSAPP_APP_SECRET: z.string(),
  WHATSAPP_VERIFY_TOKEN: z.string(),
  STRIPE_SECRET_KEY: z.string(),
  STRIPE_WEBHOOK_SECRET: z.string(),
  STRIPE_CONNECT_WEBHOOK_SECRET: z.string().optional(),
  // Web Push (RFC 8292): the key pair that signs our pushes, and who the push services may write to.
  VAPID_PUBLIC_KEY: secret,
  VAPID_PRIVATE_JWK: secret,
  VAPID_SUBJECT: z.string().regex(/^(mailto:\S+@\S+|https:\/\/\S+)$/, "must be a mailto: address or an https: URL"),
});

export type Config = z.infer<typeof configSchema>;

/** The values .dev.vars.example ships (and `npm run dev` generates around): fine locally, never in production. */
const LOCAL_VALUES = new Set([
  "generated-by-npm-run-dev",
  "local-pepper-change-me",
  "bG9jYWwtbWZhLWtleS0zMi1ieXRlcy1sb25nLWxvbmc=",
  "local-chat-hash-secret",
  "AClocal",
  "local-twilio-token",
  "+15005550006",
  "local-whatsapp-token",
  "100000000000000",
  "200000000000000",
  "local-whatsapp-app-secret",
  "local-whatsapp-verify-token",
  "sk_test_local",
  "whsec_local",
]);

/** Secrets production needs, with the real providers switched on (the only choice production allows). */
const PRODUCTION_SECRETS = [
  "JWT_PRIVATE_JWK",
  "JWT_PUBLIC_JWK",
  "PASSWORD_PEPPER",
  "MFA_ENCRYPTION_KEY",
  "CHAT_HASH_SECRET",
  "TWILIO_ACCOUNT_SID",
  "TWILIO_AUTH_TOKEN",
  "TWILIO_FROM",
  "WHATSAPP_TOKEN",
  "WHATSAPP_PHONE_NUMBER_ID",
  "WHATSAPP_BUSINESS_ACCOUNT_ID",
  "WHATSAPP_APP_SECRET",
  "WHATSAPP_VERIFY_TOKEN",
  "STRIPE_SECRET_KEY",
  "STRIPE_WEBHOOK_SECRET",
  "VAPID_PUBLIC_KEY",
  "VAPID_PRIVATE_JWK",
] as const satisfies readonly (keyof Config)[];

function isJwk(text: string, needsPrivate: boolean): boolean {
  try {
    const jwk = JSON.parse(text) as Record<string, unknown>;
    return jwk.kty === "EC" && jwk.crv === "P-256" && typeof jwk.x === "string" && typeof jwk.y === "string" && (!needsPrivate || typeof jwk.d === "string");
  } catch {
    return false;
  }
}

/** The VAPID public key (base64url of the uncompressed P-256 point) is the private JWK's own. */
function vapidPairMatches(publicKey: string, privateJwk: string): boolean {
  try {
    const jwk = JSON.parse(privateJwk) as Record<string, string>;
    const point = Uint8Array.from(atob(publicKey.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
    const coordinate = (bytes: Uint8Array) =>
      btoa(String.fromCharCode(...bytes))
        .replace(/\+/g, "-")
        .replace(/\//g, "_")
        .replace(/=+$/, "");
    return point.length === 65 && point[0] === 4 && coordinate(point.slice(1, 33)) === jwk.x && coordinate(point.slice(33)) === jwk.y;
  } catch {
    return false;
  }
}

/** Loopback, unspecified and private-use hosts: where a fake platform or provider would answer. */
export function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return (
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host === "::1" ||
    host === "::" ||
    /^127\./.test(host) ||
    /^0\./.test(host) ||
    /^10\./.test(host) ||
    /^192\.168\./.test(host) ||
    /^172\.(1[6-9]|2\d|3[01])\./.test(host) ||
    /^169\.254\./.test(host) ||
    /^f[cd][0-9a-f]{2}:/.test(host) ||
    /^fe80:/.test(host) ||
    host.startsWith("::ffff:")
  );
}

/**
 * Addresses wrangler.toml's production environment ships until the real ones are written in: the
 * reserved ".invalid" domain (RFC 2606), which never resolves.
 */
const isPlaceholderHost = (hostname: string) => hostname === "invalid" || hostname.endsWith(".invalid");

function base64Length(text: string): number {
  try {
    return atob(text).length;
  } catch {
    return -1;
  }
}

/**
 * A key of Stripe's live mode: a secret key (`sk_live_`) or a restricted one (`rk_live_`, live too,
 * with only the permissions it was given). Test keys (`sk_test_`, `rk_test_`) move no money: with
 * one, checkouts would "succeed" and extend service unpaid.
 */
const isLiveStripeKey = (key: string) => key.startsWith("sk_live_") || key.startsWith("rk_live_");

type Issue = { path: string; message: string };

function productionIssues(config: Config): Issue[] {
  const issues: Issue[] = [];
  const add = (path: keyof Config, message: string) => issues.push({ path, message });
  if (config.SMS_PROVIDER === "outbox") add("SMS_PROVIDER", "the embedded outbox is not allowed in production");
  if (config.WHATSAPP_PROVIDER === "outbox") add("WHATSAPP_PROVIDER", "the embedded outbox is not allowed in production");
  if (config.PAYMENTS_PROVIDER === "local") add("PAYMENTS_PROVIDER", "the embedded checkout is not allowed in production");
  for (const name of PRODUCTION_SECRETS) {
    const value = config[name].trim();
    if (!value) add(name, "is missing");
    else if (LOCAL_VALUES.has(value)) add(name, "still has the local example value");
  }
  if (config.JWT_PRIVATE_JWK && !isJwk(config.JWT_PRIVATE_JWK, true)) add("JWT_PRIVATE_JWK", "must be an ES256 (P-256) private JWK");
  if (config.JWT_PUBLIC_JWK && !isJwk(config.JWT_PUBLIC_JWK, false)) add("JWT_PUBLIC_JWK", "must be an ES256 (P-256) public JWK");
  if (config.VAPID_PRIVATE_JWK && !isJwk(config.VAPID_PRIVATE_JWK, true)) add("VAPID_PRIVATE_JWK", "must be an ES256 (P-256) private JWK");
  else if (config.VAPID_PUBLIC_KEY && !vapidPairMatches(config.VAPID_PUBLIC_KEY, config.VAPID_PRIVATE_JWK))
    add("VAPID_PUBLIC_KEY", "must be the base64url uncompressed point of VAPID_PRIVATE_JWK's public key");
  if (config.PASSWORD_PEPPER.length > 0 && config.PASSWORD_PEPPER.length < 16) add("PASSWORD_PEPPER", "must be at least 16 characters");
  if (config.MFA_ENCRYPTION_KEY && base64Length(config.MFA_ENCRYPTION_KEY) !== 32) add("MFA_ENCRYPTION_KEY", "must be 32 bytes, base64-encoded");
  if (config.TWILIO_FROM && !/^\+[1-9]\d{7,14}$/.test(config.TWILIO_FROM)) add("TWILIO_FROM", "must be an E.164 number");
  if (config.STRIPE_SECRET_KEY.trim() && !isLiveStripeKey(config.STRIPE_SECRET_KEY.trim()))
    add("STRIPE_SECRET_KEY", "must be a live key (sk_live_… or a restricted rk_live_…) in production, not a test one");
  for (const name of [
    "APP_ORIGIN",
    "TWILIO_API_BASE",
    "WHATSAPP_API_BASE",
    "STRIPE_API_BASE",
    "FLEX_SIGN_IN_BASE",
    "FLEX_IDENTITY_BASE",
    "FLEX_CAPACITY_BASE",
    "SPARK_PLATFORM_API_BASE",
  ] as const) {
    const hostname = config[name].startsWith("https://") ? new URL(config[name]).hostname : "";
    if (!hostname) add(name, "must be https in production");
    else if (isLocalHost(hostname)) add(name, "must not be a loopback or private address in production");
    else if (isPlaceholderHost(hostname)) add(name, "is still wrangler.toml's placeholder: write in the real address");
  }
  if (config.CHAT_WIDGET_URL && !config.CHAT_WIDGET_URL.startsWith("https://")) add("CHAT_WIDGET_URL", "must be https in production");
  return issues;
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; issues: Issue[] };

/** Validates an environment's configuration (no caching: see `loadConfig`). */
export function validateConfig(env: Record<string, unknown>): ConfigResult {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    return { ok: false, issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })) };
  }
  const issues = parsed.data.ENVIRONMENT === "production" ? productionIssues(parsed.data) : [];
  // The messaging rules' test clock (src/worker/compliance/clock.ts) must never move production's hours.
  if (parsed.data.ENVIRONMENT === "production" && env.COMPLIANCE_CLOCK_OFFSET_MS) {
    issues.push({ path: "COMPLIANCE_CLOCK_OFFSET_MS", message: "is a test setting; it cannot be set in production" });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, config: parsed.data };
}

// One validation per environment object: the runtime hands an isolate the same `env` for every request.
const cache = new WeakMap<object, ConfigResult>();

export function loadConfig(env: Env): ConfigResult {
  let result = cache.get(env);
  if (!result) {
    result = validateConfig(env as unknown as Record<string, unknown>);
    cache.set(env, result);
    if (!result.ok) console.error(JSON.stringify({ level: "error", msg: "config.invalid", environment: env.ENVIRONMENT, issues: result.issues }));
  }
  return result;
}

/** A link into the SPA (`/register?ref=…`, a checkout's return page), always from APP_ORIGIN: a request's own origin is whatever its Host header said. */
export function appUrl(config: Pick<Config, "APP_ORIGIN">, pathAndQuery: string): string {
  return `${config.APP_ORIGIN.replace(/\/$/, "")}${pathAndQuery}`;
}

export const isProduction = (env: Pick<Env, "ENVIRONMENT">) => env.ENVIRONMENT === "production";
