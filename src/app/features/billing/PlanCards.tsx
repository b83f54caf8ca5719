import { useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { expirationAfter } from "../../../shared/billing";
import { StatusView } from "../../components/ui/StatusView";
import { type Plan, usePlans } from "./api";
import { day, money } from "./format";

type Props = {
  app: "flex" | "spark";
  /** The expiration the plan's days are added to (the driver's, or the client's). */
  currentExpiration: number | null;
  /** Pay for a plan; its promise settles when the browser is leaving for the checkout, or with an error. */
  onPay: (plan: Plan, idempotencyKey: string) => Promise<void>;
  disabled?: boolean;
};

/**
 * The active plans as cards: days, price, and the expiration each would give (from the later of
 * now and the current expiration, as the server adds them). One Pay at a time; a Pay intent keeps
 * its idempotency key until it fails, so a double click opens one checkout.
 */
export function PlanCards({ app, currentExpiration, onPay, disabled }: Props) {
  const { t, i18n } = useTranslation("billing");
  const plans = usePlans(app);
  const [busy, setBusy] = useState<number | null>(null);
  const keys = useRef(new Map<number, string>());

  if (plans.error) return <StatusView kind="error" compact title={t("plans.loadError")} onRetry={() => void plans.mutate()} />;
  if (!plans.data) return <StatusView kind="loading" compact />;
  if (plans.data.Items.length === 0) return <StatusView kind="empty" compact title={t("plans.none")} />;

  const pay = async (plan: Plan) => {
    const key = keys.current.get(plan.id) ?? crypto.randomUUID();
    keys.current.set(plan.id, key);
    setBusy(plan.id);
    try {
      await onPay(plan, key);
    } catch {
      // A new attempt after a failure is a new checkout.
      keys.current.delete(plan.id);
      setBusy(null);
    }
  };

  const now = Date.now();
  return (
    <ul className="plan-cards">
      {plans.data.Items.map((plan) => (
        <li key={plan.id} className="card plan-card">
          <h3 className="plan-days">{t("plans.days", { count: plan.days })}</h3>
          <p className="plan-price">{money(plan.priceCents, i18n.language)}</p>
          <p className="plan-until">{t("plans.until", { date: day(expirationAfter(currentExpiration, plan.days, now)) })}</p>
          <button
            type="button"
            className="button button-block"
            aria-label={t("plans.payFor", { count: plan.days, price: money(plan.priceCents, i18n.language) })}
            disabled={disabled || busy !== null}
            aria-busy={busy === plan.id}
            onClick={() => void pay(plan)}
          >
            {busy === plan.id ? t("plans.redirecting") : t("plans.pay")}
          </button>
        </li>
      ))}
    </ul>
  );
}
