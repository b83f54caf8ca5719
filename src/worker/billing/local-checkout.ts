import type { z } from "zod";
import type { localCardSchema } from "../../shared/billing";
import { enforceRateLimits, limitFor } from "../auth/rate-limit";
import type { Db } from "../db/client";
import { ApiError } from "../errors";
import type { StripeEmulator } from "../providers/payments/stripe-emulator/stripe-emulator";

/**
 * What Stripe's hosted checkout and Connect onboarding pages do, for the SPA's /local-stripe/*
 * pages (PAYMENTS_PROVIDER = "local"), over the embedded provider. Open like Stripe's pages: whoever
 * holds the session's URL may pay it. Each answers 404 for an id the provider does not know.
 */

export async function checkoutPage(provider: StripeEmulator, id: string) {
  const session = await provider.checkoutSession(id);
  if (!session) throw new ApiError("not_found", "No such checkout session");
  return {
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
  };
}

/** A card typed on the page: limited per session; an invalid field is a 400 naming it, a decline a 422 with Stripe's codes. */
type LocalCard = z.infer<typeof localCardSchema>;

export async function payCheckout(db: Db, provider: StripeEmulator, id: string, card: LocalCard) {
  if (!(await provider.checkoutSession(id))) throw new ApiError("not_found", "No such checkout session");
  await enforceRateLimits(db, [limitFor("localCardAttemptsPerSession", id)]);
  const [month, year] = card.expiry.split("/").map((part) => Number(part.trim()));
  const result = (await provider.payCheckout(id, { number: card.number, expMonth: month!, expYear: year!, cvc: card.cvc }))!;
  if (result.outcome === "invalid") throw new ApiError("validation_failed", result.message, { details: [{ path: result.field, message: result.message }] });
  if (result.outcome === "declined") throw new ApiError("unprocessable", result.message, { details: { code: result.code, declineCode: result.declineCode } });
  return { status: result.outcome === "succeeded" ? "complete" : result.status, redirectUrl: result.redirectUrl };
}

/** "Back" on the checkout page: to the cancel URL, where the app ends the session. */
export async function leaveCheckout(provider: StripeEmulator, id: string) {
  const url = await provider.cancelUrlOf(id);
  if (!url) throw new ApiError("not_found", "No such checkout session");
  return { redirectUrl: url };
}

export async function onboardingPage(provider: StripeEmulator, id: string) {
  const link = await provider.accountLink(id);
  if (!link) throw new ApiError("not_found", "No such onboarding link");
  return { link: { account: link.account, email: link.accountEmail, expiresAt: link.expires_at * 1000, refreshUrl: link.refresh_url } };
}

export async function completeOnboarding(provider: StripeEmulator, id: string) {
  const done = await provider.completeOnboarding(id);
  if (!done) throw new ApiError("not_found", "No such onboarding link");
  return done;
}
