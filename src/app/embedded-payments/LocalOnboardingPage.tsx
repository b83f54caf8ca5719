import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { useParams } from "react-router";
import { TextField } from "../components/ui/FormField";
import { StatusView } from "../components/ui/StatusView";
import { localStripeApi, useLocalLink } from "./api";
import "../i18n/billing";
import "./embedded-payments.css";

/**
 * The local Connect Express onboarding (PAYMENTS_PROVIDER = "local"): stands in for Stripe's
 * hosted onboarding. Submitting makes the account able to receive transfers and returns to the
 * reseller page; nothing typed here is kept (test mode asks for no real details).
 */
export default function LocalOnboardingPage() {
  const { t } = useTranslation("billing");
  const { id = "" } = useParams();
  const { data, error, mutate } = useLocalLink(id);
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);

  if (error || !data) {
    return (
      <section className="local-checkout">
        <h1>{t("titles.localOnboarding")}</h1>
        {error ? <StatusView kind="error" title={t("localStripe.linkNotFound")} onRetry={() => void mutate()} /> : <StatusView kind="loading" />}
      </section>
    );
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setFailed(false);
    try {
      window.location.assign((await localStripeApi.completeOnboarding(id)).redirectUrl);
    } catch {
      setFailed(true);
      setBusy(false);
    }
  };

  return (
    <section className="local-checkout">
      <p className="notice local-checkout-mode">{t("localStripe.onboardingTestMode")}</p>
      <form className="card local-checkout-form" onSubmit={(e) => void submit(e)}>
        <h1>{t("localStripe.onboardingTitle")}</h1>
        <p className="muted">{t("localStripe.account", { id: data.link.account })}</p>
        {data.link.email && <TextField label={t("localStripe.email")} value={data.link.email} readOnly />}
        <TextField label={t("localStripe.legalName")} autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
        <TextField label={t("localStripe.bankAccount")} value="000123456789" readOnly hint={t("localStripe.bankHint")} />
        {failed && (
          <p className="alert" role="alert">
            {t("localStripe.onboardingFailed")}
          </p>
        )}
        <button type="submit" className="button button-block" disabled={busy}>
          {t("localStripe.submitOnboarding")}
        </button>
      </form>
    </section>
  );
}
