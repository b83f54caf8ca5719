import { StripePayments } from "./stripe";
import { StripeEmulator } from "./stripe-emulator/stripe-emulator";
import type { PaymentsProvider, ProviderDeps } from "./types";

/**
 * The Stripe emulator takes test cards for real service time, so it never runs in production:
 * a production Worker left on "local" refuses to take payments rather than give days away.
 */
export function localPaymentsAllowed(env: Pick<Env, "PAYMENTS_PROVIDER" | "ENVIRONMENT">): boolean {
  return env.PAYMENTS_PROVIDER === "local" && env.ENVIRONMENT !== "production";
}

/** The provider PAYMENTS_PROVIDER names: "local" (the Stripe emulator, the default, never in production) or "stripe". */
export function createPaymentsProvider(env: Env, deps: ProviderDeps): PaymentsProvider {
  if (env.PAYMENTS_PROVIDER === "stripe") return new StripePayments(env);
  if (localPaymentsAllowed(env)) return new StripeEmulator(env, deps);
  if (env.PAYMENTS_PROVIDER === "local") throw new Error('PAYMENTS_PROVIDER = "local" is for development; set "stripe" in production');
  throw new Error(`Unknown PAYMENTS_PROVIDER "${env.PAYMENTS_PROVIDER}"`);
}
