/**
 * wrangler.toml's production environment (`npm run deploy`). Wrangler does not inherit vars or
 * bindings into an environment, so what the top level (development, the tests) declares must be
 * declared there again; a binding added to one and not the other would deploy a Worker without it.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { experimental_readRawConfig } from "wrangler";

const { rawConfig } = experimental_readRawConfig({ config: fileURLToPath(new URL("../wrangler.toml", import.meta.url)) });
const production = rawConfig.env?.production;
const vars = (production?.vars ?? {}) as Record<string, string>;

describe("the production environment", () => {
  it("exists", () => {
    expect(production).toBeDefined();
  });

  it("sets every variable the top level sets", () => {
    expect(Object.keys(vars).sort()).toEqual(Object.keys(rawConfig.vars ?? {}).sort());
  });

  it.each([
    ["ENVIRONMENT", "production"],
    ["SMS_PROVIDER", "twilio"],
    ["WHATSAPP_PROVIDER", "cloud-api"],
    ["PAYMENTS_PROVIDER", "stripe"],
    ["TWILIO_API_BASE", "https://api.twilio.com"],
    ["STRIPE_API_BASE", "https://api.stripe.com"],
    // The platform's own hosts (docs/engine.md, "The protocol"); check-in is not offered in production.
    ["FLEX_SIGN_IN_BASE", "https://www.amazon.com"],
    ["FLEX_IDENTITY_BASE", "https://api.amazon.com"],
    ["FLEX_CAPACITY_BASE", "https://flex-capacity-na.amazon.com"],
    ["PLATFORM_CHECK_IN", "off"],
  ])("sets %s to %s", (name, value) => {
    expect(vars[name]).toBe(value);
  });

  it.each(["APP_ORIGIN", "SPARK_PLATFORM_API_BASE"])("ships %s as an https placeholder the configuration check refuses", (name) => {
    const url = new URL(vars[name]!);
    expect(url.protocol).toBe("https:");
    expect(url.hostname).toMatch(/\.invalid$/);
  });

  it.each([
    [
      "D1 databases",
      (c: typeof rawConfig) =>
        c.d1_databases?.map((d: { binding: string; database_name?: string; migrations_dir?: string }) => ({
          binding: d.binding,
          database_name: d.database_name,
          migrations_dir: d.migrations_dir,
        })),
    ],
    ["queue producers", (c: typeof rawConfig) => c.queues?.producers],
    ["queue consumers", (c: typeof rawConfig) => c.queues?.consumers],
    ["Durable Objects", (c: typeof rawConfig) => c.durable_objects?.bindings],
  ])("declares the same %s as the top level", (_, pick) => {
    expect(pick(rawConfig)?.length).toBeGreaterThan(0);
    expect(pick(production!)).toEqual(pick(rawConfig));
  });
});
