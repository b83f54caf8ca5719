import { type Context, Hono } from "hono";
import { z } from "zod";
import { localCardSchema } from "../../shared/billing";
import { enforceRateLimits, limitFor } from "../auth/rate-limit";
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
 * Stripe's hosted pages do, for the SPA's /local-stripe/* pages. Open like Stripe's pages: whoever
 * holds the session's URL may pay it.
 */
export const localStripeRoutes = new Hono<AppEnv>()
  .get("/checkout/:id{cs_local_[0-9a-f]{24}}", validate("param", sessionParam), async (c) => {
    const session = await localProvider(c).checkoutSession(c.req.valid("param").id);
    if (!session) throw new ApiError("not_found", "No such checkout session");
    return c.json({
      session: {
        id: session.id,
        status: session.status,
        amountCents: session.amount_total,
        currency: session.currency,
        productName: session.local.product_name,
        description: session.local.description,
        customerEmail: session.customer_email,
        expiresAt: session.expires_at * 1000,
        cancelUrl: session.cancel_url,
        successUrl: session.status === "complete" ? session.success_url : null,
      },
    });
  })
  .post("/checkout/:id{cs_local_[0-9a-f]{24}}/pay", validate("param", sessionParam), validate("json", localCardSchema), async (c) => {
    const provider = localProvider(c);
    const { id } = c.req.valid("param");
    const card = c.req.valid("json");
    if (!(await provider.checkoutSession(id))) throw new ApiError("not_found", "No such checkout session");
    await enforceRateLimits(c.var.db, [limitFor("localCardAttemptsPerSession", id)]);
    const [month, year] = card.expiry.split("/").map((part) => Number(part.trim()));
    const result = (await provider.payCheckout(id, { number: card.number, expMonth: month!, expYear: year!, cvc: card.cvc }))!;
    if (result.outcome === "invalid") {
      throw new ApiError("validation_failed", result.message, { details: [{ path: result.field, message: result.message }] });
    }
    if (result.outcome === "declined") {
      throw new ApiError("unprocessable", result.message, { details: { code: result.code, declineCode: result.declineCode } });
    }
    return c.json({ status: result.outcome === "succeeded" ? "complete" : result.status, redirectUrl: result.redirectUrl });
  })
  // "Back" on the checkout page: to the cancel URL, where the app ends the session.
  .post("/checkout/:id{cs_local_[0-9a-f]{24}}/cancel", validate("param", sessionParam), async (c) => {
    const url = await localProvider(c).cancelUrlOf(c.req.valid("param").id);
    if (!url) throw new ApiError("not_found", "No such checkout session");
    return c.json({ redirectUrl: url });
  })
  .get("/onboarding/:id{link_local_[0-9a-f]{24}}", validate("param", linkParam), async (c) => {
    const link = await localProvider(c).accountLink(c.req.valid("param").id);
    if (!link) throw new ApiError("not_found", "No such onboarding link");
    return c.json({ link: { account: link.account, email: link.accountEmail, expiresAt: link.expires_at * 1000, refreshUrl: link.refresh_url } });
  })
  .post("/onboarding/:id{link_local_[0-9a-f]{24}}/complete", validate("param", linkParam), async (c) => {
    const done = await localProvider(c).completeOnboarding(c.req.valid("param").id);
    if (!done) throw new ApiError("not_found", "No such onboarding link");
    return c.json(done);
  });
