import { useCallback, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useSearchParams } from "react-router";
import { Splash } from "../../components/ui/Splash";
import { ApiClientError } from "../../lib/api-client";
import { useSession } from "../../lib/session";
import { billingApi, type Plan } from "./api";
import { day } from "./format";
import { PaymentResult } from "./PaymentResult";
import { PaymentsCard } from "./PaymentsCard";
import { PlanCards } from "./PlanCards";
import { ServiceTimeCard } from "./ServiceTimeCard";
import "../../i18n/billing";
import "./billing.css";

/** The query string the checkout brings back; our own parameters are not part of what is carried. */
export function carriedQuery(params: URLSearchParams): string {
  const kept = new URLSearchParams(params);
  kept.delete("payment");
  kept.delete("canceled");
  return kept.toString();
}

/**
 * /payment: the plans with the expiration each would give, Pay (to the checkout, the query string
 * kept), and on the way back the payment's state from our own row; then the payment history.
 */
export default function PaymentPage() {
  const { t } = useTranslation("billing");
  const { user, reloadUser } = useSession();
  const [params] = useSearchParams();
  // Translation keys, worded when shown, so a language switch rewords them.
  const [error, setError] = useState<string | null>(null);
  const paymentId = Number(params.get("payment")) || null;
  const canceled = params.get("canceled") === "1";
  const onSuccess = useCallback(() => void reloadUser(), [reloadUser]);

  if (!user) return <Splash inline />;

  const pay = async (plan: Plan, idempotencyKey: string) => {
    setError(null);
    try {
      const { url } = await billingApi.checkout({ planId: plan.id, idempotencyKey, returnPath: "/payment", returnQuery: carriedQuery(params) });
      window.location.assign(url);
    } catch (err) {
      // The words docs/product.md keeps: "couldn't start payment process"; a throttle says so.
      setError(err instanceof ApiClientError && err.status === 429 ? "errors.tooMany" : "errors.couldntStart");
      throw err;
    }
  };

  const expiration = user.expirationDateTimestamp;
  const active = expiration !== null && expiration > Date.now();
  return (
    <section className="billing-page">
      <h1>{t("common:titles.payment")}</h1>
      {paymentId !== null && <PaymentResult key={paymentId} paymentId={paymentId} canceled={canceled} onSuccess={onSuccess} />}
      <p className="billing-current" data-testid="current-expiration">
        {expiration === null
          ? t("payment.noService")
          : active
            ? t("payment.activeUntil", { date: day(expiration) })
            : t("payment.expiredOn", { date: day(expiration) })}
      </p>
      {user.goodStanding && (
        <p>
          <Link to="/flex/dashboard">{t("payment.toDashboard")}</Link>
        </p>
      )}
      <h2>{t("payment.choose")}</h2>
      <p className="muted">{t("payment.howItWorks")}</p>
      {error && (
        <p className="alert" role="alert">
          {t(error)}
        </p>
      )}
      <PlanCards app={user.app} currentExpiration={expiration} onPay={pay} />
      <PaymentsCard />
      <ServiceTimeCard />
    </section>
  );
}
