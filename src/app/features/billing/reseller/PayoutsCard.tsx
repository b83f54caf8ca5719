import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Badge } from "../../../components/ui/Badge";
import { ApiClientError } from "../../../lib/api-client";
import { type ApprovedReseller, billingApi } from "../api";
import { money } from "../format";

/** Payout setup is limited (start and refresh together, 10 an hour): said as every billing screen says a 429. */
const tooMany = (err: unknown) => err instanceof ApiClientError && err.status === 429;

/**
 * An approved reseller's payouts: whether the provider can pay them, what they are owed and were
 * paid, and the Connect Express onboarding that sets payouts up (`onboarding` is the address's
 * `?onboarding=return|refresh` on the way back from it).
 */
export function PayoutsCard({ reseller, onboarding, reload }: { reseller: ApprovedReseller; onboarding: string | null; reload: () => void }) {
  const { t, i18n } = useTranslation("billing");
  const refreshed = useRef(false);
  const [setupError, setSetupError] = useState<string | null>(null);
  const [settingUp, setSettingUp] = useState(false);

  // Back from the payout setup: read the account's state now rather than wait for the provider's event.
  useEffect(() => {
    if (!onboarding || refreshed.current) return;
    refreshed.current = true;
    billingApi.refreshOnboarding().then(
      () => reload(),
      (err: unknown) => setSetupError(tooMany(err) ? "errors.tooMany" : "reseller.payouts.refreshError"),
    );
  }, [onboarding, reload]);

  const setUpPayouts = async () => {
    setSettingUp(true);
    setSetupError(null);
    try {
      const { url } = await billingApi.startOnboarding();
      window.location.assign(url);
    } catch (err) {
      setSetupError(tooMany(err) ? "errors.tooMany" : "reseller.payouts.startError");
      setSettingUp(false);
    }
  };

  return (
    <section className="card" aria-labelledby="reseller-payouts-title">
      <h2 id="reseller-payouts-title">{t("reseller.payouts.title")}</h2>
      <p>
        {reseller.payoutsEnabled ? (
          <Badge tone="success" icon="circle-check">
            {t("reseller.payouts.enabled")}
          </Badge>
        ) : reseller.detailsSubmitted ? (
          <Badge tone="warning">{t("reseller.payouts.pending")}</Badge>
        ) : (
          <Badge tone="neutral">{t("reseller.payouts.notSetUp")}</Badge>
        )}
      </p>
      {onboarding === "refresh" && <p className="notice">{t("reseller.payouts.linkExpired")}</p>}
      {setupError && (
        <p className="alert" role="alert">
          {t(setupError)}
        </p>
      )}
      <dl className="billing-totals">
        <div>
          <dt>{t("reseller.totals.owed")}</dt>
          <dd>{money(reseller.totals.owedCents, i18n.language)}</dd>
        </div>
        <div>
          <dt>{t("reseller.totals.paid")}</dt>
          <dd>{money(reseller.totals.paidCents, i18n.language)}</dd>
        </div>
      </dl>
      <div className="actions">
        <button
          type="button"
          className={reseller.payoutsEnabled ? "button button-secondary" : "button"}
          disabled={settingUp}
          onClick={() => void setUpPayouts()}
        >
          {reseller.payoutsEnabled ? t("reseller.payouts.update") : t("reseller.payouts.setUp")}
        </button>
      </div>
    </section>
  );
}
