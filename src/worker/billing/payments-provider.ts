import { createPaymentsProvider } from "../providers/payments/provider";
import { StripeEmulator } from "../providers/payments/stripe-emulator/stripe-emulator";
import type { PaymentsProvider, ProviderDeps } from "../providers/payments/types";
import type { BillingContext } from "./context";

const providerDeps = (ctx: BillingContext): ProviderDeps => ({ log: ctx.log, deliverEvent: ctx.deliverStripeEvent });

/** The payments provider PAYMENTS_PROVIDER names; the emulator's events go to the context's webhook handler. */
export function paymentsProvider(ctx: BillingContext): PaymentsProvider {
  return createPaymentsProvider(ctx.env, providerDeps(ctx));
}

/** The Stripe emulator itself, for its own pages and its cron upkeep (where localPaymentsAllowed says it runs). */
export function stripeEmulator(ctx: BillingContext): StripeEmulator {
  return new StripeEmulator(ctx.env, providerDeps(ctx));
}
