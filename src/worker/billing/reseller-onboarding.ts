import { and, asc, eq, isNull } from "drizzle-orm";
import { enforceCallerLimits, limitFor } from "../auth/rate-limit";
import type { SessionUser } from "../context";
import { commissions, resellers, users } from "../db/schema";
import { ApiError } from "../errors";
import { PaymentsProviderError } from "../providers/payments/provider-error";
import { settleCommission } from "./commissions";
import type { BillingContext } from "./context";
import { paymentsProvider } from "./payments-provider";
import { approvedReseller } from "./resellers";

/**
 * Connect Express onboarding: the reseller's account (created once; its id is the product's
 * stripeExpressId) and a fresh account link to the provider's onboarding, which returns to
 * /flex/reseller.
 */
export async function startOnboarding(ctx: BillingContext, user: SessionUser, origin: string): Promise<{ url: string; accountId: string }> {
  const { db } = ctx;
  await approvedReseller(db, user.id);
  // Counted once the caller may set payouts up, so a refusal or bad input writes nothing.
  await enforceCallerLimits(db, [limitFor("resellerOnboardingPerUser", String(user.id))]);
  const provider = paymentsProvider(ctx);
  try {
    let accountId = user.stripeExpressId;
    if (!accountId) {
      const created = await provider.createExpressAccount({ userId: user.id, email: user.email, country: "US" });
      // Two tabs at once: the provider's idempotency key gives both the same account, and the first write wins.
      await db
        .update(users)
        .set({ stripeExpressId: created.id })
        .where(and(eq(users.id, user.id), isNull(users.stripeExpressId)));
      accountId = (await db.select({ id: users.stripeExpressId }).from(users).where(eq(users.id, user.id)).get())?.id ?? created.id;
    }
    const link = await provider.createAccountLink({
      accountId,
      refreshUrl: `${origin}/flex/reseller?onboarding=refresh`,
      returnUrl: `${origin}/flex/reseller?onboarding=return`,
    });
    return { url: link.url, accountId };
  } catch (err) {
    if (err instanceof PaymentsProviderError) {
      ctx.log.error("resellers.onboarding_failed", { userId: user.id, code: err.code, error: err.message });
      throw new ApiError("unavailable", "Couldn't start the payout setup. Try again in a moment");
    }
    throw err;
  }
}

/**
 * The Express account's state (from account.updated, or read back when the reseller returns from
 * onboarding). Once payouts are enabled, commissions that waited for it are transferred.
 */
export async function updateAccountStatus(ctx: BillingContext, account: { id: string; detailsSubmitted: boolean; payoutsEnabled: boolean }) {
  const { db } = ctx;
  const owner = await db.select({ id: users.id }).from(users).where(eq(users.stripeExpressId, account.id)).get();
  if (!owner) {
    ctx.log.warn("resellers.unknown_account", { accountId: account.id });
    return;
  }
  await db
    .update(resellers)
    .set({ detailsSubmitted: account.detailsSubmitted, payoutsEnabled: account.payoutsEnabled, updatedAt: Date.now() })
    .where(eq(resellers.userId, owner.id));
  if (!account.payoutsEnabled) return;
  const waiting = await db
    .select({ id: commissions.id })
    .from(commissions)
    .where(and(eq(commissions.resellerId, owner.id), eq(commissions.status, "pending")))
    .orderBy(asc(commissions.id))
    .limit(50);
  ctx.waitUntil(
    (async () => {
      for (const { id } of waiting) await settleCommission(ctx, id);
    })().catch((err: unknown) => ctx.log.error("commissions.settle_failed", { error: String(err) })),
  );
}

export async function refreshOnboarding(ctx: BillingContext, user: SessionUser) {
  await approvedReseller(ctx.db, user.id);
  if (!user.stripeExpressId) return { detailsSubmitted: false, payoutsEnabled: false };
  await enforceCallerLimits(ctx.db, [limitFor("resellerOnboardingPerUser", String(user.id))]);
  try {
    const account = await paymentsProvider(ctx).retrieveAccount(user.stripeExpressId);
    await updateAccountStatus(ctx, account);
    return { detailsSubmitted: account.detailsSubmitted, payoutsEnabled: account.payoutsEnabled };
  } catch (err) {
    if (err instanceof PaymentsProviderError) throw new ApiError("unavailable", "Couldn't read the payout account. Try again in a moment");
    throw err;
  }
}
