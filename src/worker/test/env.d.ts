declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** Base URL of the fake SMS/WhatsApp provider (test/fake-provider); add /t/<tenant> for a private one. */
    FAKE_PROVIDER_URL: string;
    /** Base URL of the fake delivery platform (test/fake-platform); add /t/<tenant> for a private world, then /flex or /spark. */
    FAKE_PLATFORM_URL: string;
    /** Base URL of the fake Stripe API (test/fake-stripe); each secret key sk_test_<x> is its own account. */
    FAKE_STRIPE_URL: string;
    /** Base URL of the fake Web Push service (test/fake-push): POST /__control/subscriptions makes an endpoint. */
    FAKE_PUSH_URL: string;
  }
}
