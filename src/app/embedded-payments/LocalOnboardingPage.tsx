import { useState } from "react";
import { useTranslation } from "react-i18next";
import { useParams } from "react-router";
import { z } from "../../shared/zod";
import { TextField } from "../components/ui/FormField";
import { StatusView } from "../components/ui/StatusView";
import { useSchemaForm } from "../lib/forms";
import { localStripeApi, useLocalLink } from "./api";
import "../i18n/billing";
import "./embedded-payments.css";

/** What the page asks, as Stripe's would; none of it is sent. */
const onboardingSchema = z.object({ legalName: z.string() });

/**
 * The local Connect Express onboarding (PAYMENTS_PROVIDER = "local"): stands in for Stripe's
 * hosted onboarding. Submitting makes the account able to receive transfers and returns to the
 * reseller page; nothing typed here is kept (test mode asks for no real details).
 */
export default function LocalOnboardingPage() {
  const { t } = useTranslation("billing");
  const { id = "" } = useParams();
  const { data, error, mutate } = useLocalLink(id);
  const form = useSchemaForm(onboardingSchema, { legalName: "" });
  // Leaving for the app's address: the page stays busy until the browser has gone.
  const [leaving, setLeaving] = useState(false);

  if (error || !data) {
    return (
      <section className="local-checkout">
        <h1>{t("titles.localOnboarding")}</h1>
        {error ? <StatusView kind="error" title={t("localStripe.linkNotFound")} onRetry={() => void mutate()} /> : <StatusView kind="loading" />}
      </section>
    );
  }

  const submit = form.onSubmit(async () => {
    try {
      const { redirectUrl } = await localStripeApi.completeOnboarding(id);
      setLeaving(true);
      window.location.assign(redirectUrl);
    } catch {
      form.setFormError("billing:localStripe.onboardingFailed");
    }
  });

  return (
    <section className="local-checkout">
      <p className="notice local-checkout-mode">{t("localStripe.onboardingTestMode")}</p>
      <form className="card local-checkout-form" onSubmit={(e) => void submit(e)}>
        <h1>{t("localStripe.onboardingTitle")}</h1>
        <p className="muted">{t("localStripe.account", { id: data.link.account })}</p>
        {data.link.email && <TextField label={t("localStripe.email")} value={data.link.email} readOnly />}
        <TextField label={t("localStripe.legalName")} autoComplete="name" {...form.field("legalName")} />
        <TextField label={t("localStripe.bankAccount")} value="000123456789" readOnly hint={t("localStripe.bankHint")} />
        {form.formError && (
          <p className="alert" role="alert">
            {form.formError}
          </p>
        )}
        <button type="submit" className="button button-block" disabled={form.submitting || leaving}>
          {t("localStripe.submitOnboarding")}
        </button>
      </form>
    </section>
  );
}
