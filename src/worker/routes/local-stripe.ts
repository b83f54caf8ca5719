import { type Context, Hono } from "hono";
import { z } from "zod";
import { localCardSchema } from "../../shared/billing";
import { checkoutPage, completeOnboarding, leaveCheckout, onboardingPage, payCheckout } from "../billing/local-checkout";
import { stripeEmulator } from "../billing/payments-provider";
import { billingContext } from "../billing/run-context";
import type { AppEnv } from "../context";
import { ApiError } from "../errors";
import { localPaymentsAllowed } from "../providers/payments/provider";
import type { StripeEmulator } from "../providers/payments/stripe-emulator/stripe-emulator";
import { validate } from "../validate";

// Ids as the local provider makes them: unguessable, so the URL is the capability, as Stripe's checkout URLs are.
const sessionParam = z.object({ id: z.string().regex(/^cs_local_[0-9a-f]{24}$/) });
const linkParam = z.object({ id: z.string().regex(/^link_local_[0-9a-f]{24}$/) });

/** The embedded provider, or 404 when real Stripe is configured or in production (these pages then do not exist). */
function localProvider(c: Context<AppEnv>): StripeEmulator {
  if (!localPaymentsAllowed(c.env)) throw new ApiError("not_found", "The local checkout is off: payments go through Stripe");
  return stripeEmulator(billingContext(c));
}

/**
 * The local checkout and Connect onboarding pages' API (PAYMENTS_PROVIDER = "local"): what
 * Stripe's hosted pages do, for the SPA's /local-stripe/* pages (billing/local-checkout.ts).
 */
export const localStripeRoutes = new Hono<AppEnv>()
  .get("/checkout/:id{cs_local_[0-9a-f]{24}}", validate("param", sessionParam), async (c) =>
    c.json(await checkoutPage(localProvider(c), c.req.valid("param").id)),
  )
  .post("/checkout/:id{cs_local_[0-9a-f]{24}}/pay", validate("param", sessionParam), validate("json", localCardSchema), async (c) =>
    c.json(await payCheckout(c.var.db, localProvider(c), c.req.valid("param").id, c.req.valid("json"))),
  )
  // "Back" on the checkout page: to the cancel URL, where the app ends the session.
  .post("/checkout/:id{cs_local_[0-9a-f]{24}}/cancel", validate("param", sessionParam), async (c) =>
    c.json(await leaveCheckout(localProvider(c), c.req.valid("param").id)),
  )
  .get("/onboarding/:id{link_local_[0-9a-f]{24}}", validate("param", linkParam), async (c) =>
    c.json(await onboardingPage(localProvider(c), c.req.valid("param").id)),
  )
  .post("/onboarding/:id{link_local_[0-9a-f]{24}}/complete", validate("param", linkParam), async (c) =>
    c.json(await completeOnboarding(localProvider(c), c.req.valid("param").id)),
  );
