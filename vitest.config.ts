import { generateKeyPairSync } from "node:crypto";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";
import { iconSprite } from "./scripts/icon-sprite.ts";

// A throw-away key pair per test run: tests never read a developer's .dev.vars.
const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const jwk = (k: typeof privateKey) => JSON.stringify({ ...k.export({ format: "jwk" }), alg: "ES256" });
// And one for Web Push (VAPID): the private JWK, and the public key as the uncompressed point, base64url.
const vapid = generateKeyPairSync("ec", { namedCurve: "P-256" });
const vapidPublicKey = Buffer.concat([
  Buffer.from([4]),
  ...(["x", "y"] as const).map((c) => Buffer.from(vapid.publicKey.export({ format: "jwk" })[c]!, "base64url")),
]).toString("base64url");

/**
 * How many files run at once. A project declared with `extends: false` does not take the root's
 * maxWorkers, so each project says its own; Vitest's default (cores − 1) had run one file at a time
 * on a two-core machine. Two or more Worker test files at once in one Vitest process can leave a
 * workerd running after its file has passed, and the run never ends (seen here once in two runs;
 * cloudflare/workers-sdk#14903): the Worker tests run one file at a time, in a process of their
 * own beside the app tests (`npm run test:unit`). Those (happy-dom) run one file per core. Projects
 * with different maxWorkers need their own groupOrder: a plain `vitest run` runs the Worker tests
 * first, then the rest.
 *
 * The Worker test files share one module graph and one database (`isolate: false`). Isolated, every
 * file loaded the Worker's modules afresh, 3.5 s of CPU each: 62 files took 320 s of CPU, and 92 s
 * shared. So a Worker test makes its own rows (uniquePhone, uniqueTag, createUser) and never
 * counts on an id or a table being empty; the suite passes with its files in shuffled orders
 * (`vitest run --project worker --sequence.shuffle.files`).
 */
const APP_FILES_AT_ONCE = Math.max(2, availableParallelism());

export default defineConfig({
  test: {
    // Logs of passing tests are noise; a failing test shows its own.
    silent: "passed-only",
    // A run that ends without its summary says which files were running, and how it ended.
    reporters: ["default", "./scripts/unfinished-run-reporter.ts"],
    projects: [
      {
        extends: false,
        plugins: [
          cloudflareTest(async ({ inject }) => ({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                ENVIRONMENT: "test",
                TEST_MIGRATIONS: await readD1Migrations(fileURLToPath(new URL("./migrations", import.meta.url))),
                JWT_PRIVATE_JWK: jwk(privateKey),
                JWT_PUBLIC_JWK: jwk(publicKey),
                PASSWORD_PEPPER: "test-pepper",
                MFA_ENCRYPTION_KEY: "dGVzdC1tZmEta2V5LTMyLWJ5dGVzLWxvbmctbG9uZyE=",
                CHAT_HASH_SECRET: "test-chat-secret",
                TWILIO_ACCOUNT_SID: "ACtest",
                TWILIO_AUTH_TOKEN: "test-twilio-token",
                TWILIO_FROM: "+15005550006",
                WHATSAPP_TOKEN: "test-whatsapp-token",
                WHATSAPP_PHONE_NUMBER_ID: "100000000000000",
                WHATSAPP_BUSINESS_ACCOUNT_ID: "200000000000000",
                WHATSAPP_APP_SECRET: "test-whatsapp-secret",
                WHATSAPP_VERIFY_TOKEN: "test-verify-token",
                STRIPE_SECRET_KEY: "sk_test_x",
                STRIPE_WEBHOOK_SECRET: "whsec_test",
                STRIPE_CONNECT_WEBHOOK_SECRET: "whsec_connect_test",
                ENGINE_SERVICE_TOKEN: "test-engine-token",
                VAPID_PRIVATE_JWK: jwk(vapid.privateKey),
                VAPID_PUBLIC_KEY: vapidPublicKey,
                // Push tests: the fake push service of test/fake-push (started by globalSetup).
                FAKE_PUSH_URL: inject("fakePushUrl"),
                // Messaging tests: the fake provider of test/fake-provider (started by globalSetup), fast pacing.
                FAKE_PROVIDER_URL: inject("fakeProviderUrl"),
                // Payment tests of the real Stripe adapter: the fake Stripe API of test/fake-stripe.
                FAKE_STRIPE_URL: inject("fakeStripeUrl"),
                SEND_RATE_PER_SECOND: "1000",
                PROVIDER_TIMEOUT_MS: "1000",
                // The driver product: the fake platform of test/fake-platform (its default world), short time-outs.
                FAKE_PLATFORM_URL: inject("fakePlatformUrl"),
                FLEX_SIGN_IN_BASE: `${inject("fakePlatformUrl")}/flex`,
                FLEX_IDENTITY_BASE: `${inject("fakePlatformUrl")}/flex`,
                FLEX_CAPACITY_BASE: `${inject("fakePlatformUrl")}/flex`,
                SPARK_PLATFORM_API_BASE: `${inject("fakePlatformUrl")}/spark`,
                PLATFORM_TIMEOUT_MS: "1000",
                CAPTURE_POLL_INTERVAL_MS: "300",
                // The engine waits out a "Rate exceeded" lockout this long (30 minutes in production); the fake's tests lock out for less.
                // Two seconds: a test asks what the lockout holds back while it lasts, and under the whole
                // run's load one second was over before its next calls (the driver told of it meanwhile).
                CAPTURE_LOCKOUT_MS: "2000",
              },
            },
          })),
        ],
        test: {
          name: "worker",
          maxWorkers: 1,
          isolate: false,
          sequence: { groupOrder: 0 },
          // A time limit only catches a hung test: no test asserts how fast anything is (benches do),
          // and a busy shared machine can take several seconds over one that signs in and runs a campaign.
          testTimeout: 30_000,
          // The same for a hook: the first file to call the Worker also loads its modules, and on a
          // clean clone, with the e2e run and the benches beside it, that took a 10 s hook past its limit.
          hookTimeout: 30_000,
          include: ["src/worker/**/*.test.ts", "src/shared/**/*.test.ts"],
          setupFiles: ["./src/worker/test/apply-migrations.ts"],
          globalSetup: [
            "./test/fake-provider/global-setup.ts",
            "./test/fake-stripe/global-setup.ts",
            "./test/fake-platform/global-setup.ts",
            "./test/fake-push/global-setup.ts",
          ],
        },
      },
      {
        extends: false,
        // Plain Node: the scripts, and the fake servers' own behaviour (test/fake-provider).
        test: {
          name: "scripts",
          maxWorkers: APP_FILES_AT_ONCE,
          sequence: { groupOrder: 1 },
          environment: "node",
          include: ["scripts/**/*.test.ts", "test/**/*.test.ts"],
        },
      },
      {
        extends: false,
        plugins: [react(), iconSprite()],
        test: {
          name: "app",
          maxWorkers: APP_FILES_AT_ONCE,
          sequence: { groupOrder: 1 },
          testTimeout: 30_000,
          hookTimeout: 30_000,
          environment: "happy-dom",
          include: ["src/app/**/*.test.{ts,tsx}"],
          setupFiles: ["./src/app/test/setup.ts"],
        },
      },
    ],
  },
});
