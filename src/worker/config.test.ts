import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { app, productionApp } from "./app";
import { APP_ORIGIN_MAX_LENGTH, appUrl, validateConfig } from "./config";
import worker from "./index";
import { createSmsProvider } from "./providers/sms/provider";
import { createWhatsAppProvider } from "./providers/whatsapp/provider";
import { seedAdmin, signInAdmin } from "./test/fixtures";

const keys = { private: "", public: "" };
beforeAll(async () => {
  const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
  keys.private = JSON.stringify({ ...(await crypto.subtle.exportKey("jwk", pair.privateKey)), alg: "ES256" });
  keys.public = JSON.stringify({ ...(await crypto.subtle.exportKey("jwk", pair.publicKey)), alg: "ES256" });
});

/** A production configuration that passes: real providers, real-looking secrets, https everywhere. */
function production(overrides: Record<string, string> = {}): Env {
  return {
    ...env,
    ENVIRONMENT: "production",
    APP_ORIGIN: "https://blockpilot.example",
    SMS_PROVIDER: "twilio",
    WHATSAPP_PROVIDER: "cloud-api",
    PAYMENTS_PROVIDER: "stripe",
    STRIPE_API_BASE: "https://api.stripe.com",
    STRIPE_SECRET_KEY: "sk_live_0123456789abcdef",
    STRIPE_WEBHOOK_SECRET: "whsec_0123456789abcdef",
    TWILIO_API_BASE: "https://api.twilio.com",
    WHATSAPP_API_BASE: "https://graph.facebook.com/v21.0",
    FLEX_SIGN_IN_BASE: "https://www.amazon.com",
    FLEX_IDENTITY_BASE: "https://api.amazon.com",
    FLEX_CAPACITY_BASE: "https://flex-capacity-na.amazon.com",
    PLATFORM_CHECK_IN: "off",
    SPARK_PLATFORM_API_BASE: "https://spark.platform.example/v1",
    JWT_PRIVATE_JWK: keys.private,
    JWT_PUBLIC_JWK: keys.public,
    PASSWORD_PEPPER: "a-real-pepper-of-enough-length",
    MFA_ENCRYPTION_KEY: btoa("0123456789abcdef0123456789abcdef"),
    CHAT_HASH_SECRET: "chat-secret-for-production",
    TWILIO_ACCOUNT_SID: "AC0123456789abcdef0123456789abcdef",
    TWILIO_AUTH_TOKEN: "twilio-production-token",
    TWILIO_FROM: "+13055550123",
    WHATSAPP_TOKEN: "whatsapp-production-token",
    WHATSAPP_PHONE_NUMBER_ID: "123456789012345",
    WHATSAPP_BUSINESS_ACCOUNT_ID: "234567890123456",
    WHATSAPP_APP_SECRET: "whatsapp-production-secret",
    WHATSAPP_VERIFY_TOKEN: "whatsapp-production-verify",
    ...overrides,
  } as Env;
}

const pathsOf = (result: ReturnType<typeof validateConfig>) => (result.ok ? [] : result.issues.map((i) => i.path));

async function fetchWith(environment: Env, path: string, init?: RequestInit) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`https://bp.test${path}`, init) as Request<unknown, IncomingRequestCfProperties>, environment, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("configuration", () => {
  it("accepts the test environment and a complete production one", () => {
    expect(validateConfig(env as unknown as Record<string, unknown>)).toMatchObject({ ok: true });
    const result = validateConfig(production() as unknown as Record<string, unknown>);
    expect(result.ok ? [] : result.issues).toEqual([]);
  });

  it("refuses VAPID keys in production that are the example's, not a P-256 private JWK, or not one pair", () => {
    expect(
      pathsOf(validateConfig(production({ VAPID_PUBLIC_KEY: "generated-by-npm-run-dev", VAPID_PRIVATE_JWK: "generated-by-npm-run-dev" }) as never)),
    ).toEqual(expect.arrayContaining(["VAPID_PUBLIC_KEY", "VAPID_PRIVATE_JWK"]));
    expect(pathsOf(validateConfig(production({ VAPID_PRIVATE_JWK: keys.public }) as never))).toEqual(["VAPID_PRIVATE_JWK"]);
    // Another pair's private key: the public key is not its own.
    expect(pathsOf(validateConfig(production({ VAPID_PRIVATE_JWK: keys.private }) as never))).toEqual(["VAPID_PUBLIC_KEY"]);
    expect(pathsOf(validateConfig({ ...env, VAPID_SUBJECT: "support@blockpilot.app" } as never))).toEqual(["VAPID_SUBJECT"]);
  });

  it("refuses the embedded providers in production", () => {
    const result = validateConfig(
      production({ SMS_PROVIDER: "outbox", WHATSAPP_PROVIDER: "outbox", PAYMENTS_PROVIDER: "local" }) as unknown as Record<string, unknown>,
    );
    expect(pathsOf(result)).toEqual(["SMS_PROVIDER", "WHATSAPP_PROVIDER", "PAYMENTS_PROVIDER"]);
  });

  it("refuses missing secrets and the local example values in production", () => {
    const result = validateConfig(production({ TWILIO_AUTH_TOKEN: "", PASSWORD_PEPPER: "local-pepper-change-me", WHATSAPP_APP_SECRET: "  " }) as never);
    expect(pathsOf(result)).toEqual(expect.arrayContaining(["TWILIO_AUTH_TOKEN", "PASSWORD_PEPPER", "WHATSAPP_APP_SECRET"]));
    expect(pathsOf(validateConfig(production({ JWT_PRIVATE_JWK: keys.public }) as never))).toEqual(["JWT_PRIVATE_JWK"]);
    expect(pathsOf(validateConfig(production({ MFA_ENCRYPTION_KEY: btoa("too short") }) as never))).toEqual(["MFA_ENCRYPTION_KEY"]);
    expect(pathsOf(validateConfig(production({ APP_ORIGIN: "http://blockpilot.example" }) as never))).toEqual(["APP_ORIGIN"]);
    expect(pathsOf(validateConfig(production({ COMPLIANCE_CLOCK_OFFSET_MS: "3600000" }) as never))).toEqual(["COMPLIANCE_CLOCK_OFFSET_MS"]);
  });

  it("takes only Stripe's live keys in production (secret or restricted), and any key elsewhere", () => {
    for (const key of ["sk_test_51AbCdEf0123456789", "rk_test_51AbCdEf0123456789", "pk_live_51AbCdEf0123456789", "whsec_0123456789abcdef"]) {
      expect(pathsOf(validateConfig(production({ STRIPE_SECRET_KEY: key }) as never)), key).toEqual(["STRIPE_SECRET_KEY"]);
    }
    expect(pathsOf(validateConfig(production({ STRIPE_SECRET_KEY: "rk_live_51AbCdEf0123456789" }) as never))).toEqual([]);
    expect(validateConfig({ ...env, STRIPE_SECRET_KEY: "sk_test_51AbCdEf0123456789" } as never)).toMatchObject({ ok: true });
  });

  it("refuses the fake delivery platform in production: plain http, loopback or private addresses", () => {
    for (const base of [
      "http://127.0.0.1:8796/flex",
      "http://flex.platform.example/v1",
      "https://127.0.0.1:8796/flex",
      "https://localhost/flex",
      "https://fake.localhost/flex",
      "https://[::1]:8796/flex",
      "https://[::ffff:127.0.0.1]/flex",
      "https://0.0.0.0/flex",
      "https://10.1.2.3/flex",
      "https://192.168.1.20/flex",
    ]) {
      for (const name of ["FLEX_SIGN_IN_BASE", "FLEX_IDENTITY_BASE", "FLEX_CAPACITY_BASE", "SPARK_PLATFORM_API_BASE"])
        expect(pathsOf(validateConfig(production({ [name]: base }) as never)), `${name} ${base}`).toEqual([name]);
    }
    expect(pathsOf(validateConfig(production({ TWILIO_API_BASE: "https://127.0.0.1:8794" }) as never))).toEqual(["TWILIO_API_BASE"]);
    // Outside production the fake platform on loopback is the default.
    expect(validateConfig({ ...env, FLEX_CAPACITY_BASE: "http://127.0.0.1:8796/flex" } as never)).toMatchObject({ ok: true });
  });

  it("refuses the placeholders wrangler.toml's production environment ships until the real addresses are written in", () => {
    const shipped = {
      APP_ORIGIN: "https://blockpilot.invalid",
      SPARK_PLATFORM_API_BASE: "https://spark-platform.invalid",
    };
    expect(pathsOf(validateConfig(production(shipped) as never))).toEqual(["APP_ORIGIN", "SPARK_PLATFORM_API_BASE"]);
    for (const base of ["https://invalid/v1", "https://api.platform.invalid/v1"]) {
      expect(pathsOf(validateConfig(production({ FLEX_IDENTITY_BASE: base }) as never)), base).toEqual(["FLEX_IDENTITY_BASE"]);
    }
    // A host that only contains the word is a real one; outside production the placeholders are not looked at.
    expect(pathsOf(validateConfig(production({ FLEX_CAPACITY_BASE: "https://invalid.platform.example/v1" }) as never))).toEqual([]);
    expect(validateConfig({ ...env, ...shipped } as never)).toMatchObject({ ok: true });
  });

  it("takes APP_ORIGIN as an origin only, short enough for a texted link to fit one SMS", () => {
    const ok = validateConfig(production({ APP_ORIGIN: "https://blockpilot.example/" }) as never);
    expect(ok.ok && ok.config.APP_ORIGIN).toBe("https://blockpilot.example");
    expect(appUrl({ APP_ORIGIN: "https://blockpilot.example/" }, "/register?ref=AB")).toBe("https://blockpilot.example/register?ref=AB");
    for (const origin of ["https://blockpilot.example/app", "https://blockpilot.example?x=1", `https://${"x".repeat(APP_ORIGIN_MAX_LENGTH - 7)}`]) {
      expect(pathsOf(validateConfig({ ...env, APP_ORIGIN: origin } as never)), origin).toEqual(["APP_ORIGIN"]);
    }
  });

  it("refuses malformed numbers and unknown names in every environment", () => {
    for (const [name, value] of [
      ["SEND_RATE_PER_SECOND", "fast"],
      ["SEND_RATE_PER_SECOND", "0"],
      ["SEND_RATE_PER_SECOND", "1e3"],
      ["PROVIDER_TIMEOUT_MS", "10s"],
      ["PROVIDER_TIMEOUT_MS", "2.5"],
      ["SEND_LEASE_SECONDS", "2m"],
      ["SEND_LEASE_SECONDS", "0"],
      ["REQUEUE_AFTER_SECONDS", "180.5"],
      ["REQUEUE_AFTER_SECONDS", "86400"],
      ["CODE_SMS_HOURLY_BUDGET", "-1"],
      ["CODE_SMS_HOURLY_BUDGET", ""],
      ["PLATFORM_TIMEOUT_MS", "5s"],
      ["PLATFORM_TIMEOUT_MS", "0"],
      ["CAPTURE_POLL_INTERVAL_MS", "100"],
      ["CAPTURE_POLL_INTERVAL_MS", "2 s"],
      ["FLEX_SIGN_IN_BASE", "ftp://platform.example"],
      ["FLEX_APP_BUILD", "3.110"],
      ["FLEX_APP_VERSION", "latest"],
      ["PLATFORM_CHECK_IN", "on"],
      ["SPARK_PLATFORM_API_BASE", "not a url"],
      ["SMS_PROVIDER", "carrier-pigeon"],
      ["RESELLER_COMMISSION_PERCENT", "120"],
      ["ENVIRONMENT", "prod"],
    ] as const) {
      expect(pathsOf(validateConfig({ ...env, [name]: value } as never)), `${name}=${value}`).toEqual([name]);
      expect(pathsOf(validateConfig(production({ [name]: value }) as never)), `production ${name}=${value}`).toContain(name);
    }
  });

  it("serves nothing on a production configuration that fails: 503 in the envelope", async () => {
    const res = await fetchWith(production({ SMS_PROVIDER: "outbox" }), "/api/status/health");
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: { code: "unavailable", message: "The service is not available. Try again later" } });
    expect((await fetchWith(production(), "/api/status/health")).status).toBe(200);
  });

  it("leaves queue batches on the queue when the configuration fails", async () => {
    let retried = 0;
    let acked = 0;
    const message = { id: "1", timestamp: new Date(), body: { kind: "expand", campaignId: 1 }, attempts: 1, ack: () => acked++, retry: () => retried++ };
    const batch = {
      queue: "blockpilot-dispatch",
      messages: [message],
      retryAll: () => retried++,
      ackAll: () => acked++,
    } as unknown as MessageBatch<unknown>;
    await worker.queue(batch, production({ PROVIDER_TIMEOUT_MS: "soon" }), createExecutionContext());
    expect({ retried, acked }).toEqual({ retried: 1, acked: 0 });
  });
});

describe("the outbox in production", () => {
  it("is not a route of the production app", () => {
    const routes = (a: typeof app) => new Set(a.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path}`));
    expect(routes(app)).toContain("GET /api/admin/outbox");
    expect(routes(productionApp)).not.toContain("GET /api/admin/outbox");
    // The development routes are the outbox and the generated API reference; nothing else differs.
    expect(routes(app)).toContain("GET /api/openapi.json");
    expect(routes(productionApp)).not.toContain("GET /api/openapi.json");
    expect(routes(productionApp).size).toBe(routes(app).size - 2);
  });

  it("serves no API reference in production", async () => {
    const res = await fetchWith(production(), "/api/openapi.json");
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: "not_found" } });
  });

  it("answers 404 to an administrator in production, and pages the outbox elsewhere", async () => {
    const admin = await seedAdmin();
    const { idToken } = await signInAdmin(admin);
    const headers = { Authorization: `Bearer ${idToken}` };
    const inProduction = await fetchWith(production({ JWT_PRIVATE_JWK: env.JWT_PRIVATE_JWK, JWT_PUBLIC_JWK: env.JWT_PUBLIC_JWK }), "/api/admin/outbox", {
      headers,
    });
    expect(inProduction.status).toBe(404);
    const inTest = await fetchWith(env, "/api/admin/outbox?page=1&pageSize=20", { headers });
    expect(inTest.status).toBe(200);
    expect(await inTest.json()).toMatchObject({ page: 1, pageSize: 20 });
  });

  it("cannot be built as a provider in production", () => {
    expect(() => createSmsProvider({ ...env, ENVIRONMENT: "production", SMS_PROVIDER: "outbox" })).toThrow(/not available in production/);
    expect(() => createWhatsAppProvider({ ...env, ENVIRONMENT: "production", WHATSAPP_PROVIDER: "outbox" })).toThrow(/not available in production/);
  });
});
