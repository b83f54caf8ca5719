import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { useParams } from "react-router";
import { formatCents, localCardSchema } from "../../shared/billing";
import { TextField } from "../components/ui/FormField";
import { StatusView } from "../components/ui/StatusView";
import { ApiClientError } from "../lib/api-client";
import { localStripeApi, useLocalSession } from "./api";
import "../i18n/billing";
import "./embedded-payments.css";

type Field = "number" | "expiry" | "cvc";
const DECLINES = new Set(["generic_decline", "insufficient_funds", "test_mode_live_card"]);

/** 4242424242424242 → "4242 4242 4242 4242", as card forms show it. */
export function groupCardNumber(value: string): string {
  return value
    .replace(/\D/g, "")
    .slice(0, 19)
    .replace(/(\d{4})(?=\d)/g, "$1 ");
}

/** "1240" → "12 / 40". */
export function formatExpiry(value: string): string {
  const digits = value.replace(/\D/g, "").slice(0, 4);
  return digits.length > 2 ? `${digits.slice(0, 2)} / ${digits.slice(2)}` : digits;
}

/**
 * The local checkout (PAYMENTS_PROVIDER = "local"): what Stripe's hosted page does, in test mode.
 * Stripe's test cards succeed or decline as there; a decline keeps the session open for another
 * card; Back returns to the app's cancel address.
 */
export default function LocalCheckoutPage() {
  const { t, i18n } = useTranslation("billing");
  const { id = "" } = useParams();
  const { data, error, mutate } = useLocalSession(id);
  const [card, setCard] = useState({ number: "", expiry: "", cvc: "", name: "" });
  // Translation keys, worded when shown, so a language switch rewords them.
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [declined, setDeclined] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  if (error || !data) {
    return (
      <section className="local-checkout">
        <h1>{t("titles.localCheckout")}</h1>
        {error ? <StatusView kind="error" title={t("localStripe.notFound")} onRetry={() => void mutate()} /> : <StatusView kind="loading" />}
      </section>
    );
  }
  const session = data.session;
  const amount = formatCents(session.amountCents, i18n.language === "es" ? "es-US" : "en-US");

  if (session.status !== "open") {
    const to = session.status === "complete" ? session.successUrl : session.cancelUrl;
    return (
      <section className="local-checkout">
        <h1>{session.status === "complete" ? t("localStripe.alreadyPaid") : t("localStripe.expired")}</h1>
        {to && (
          <a className="button" href={to}>
            {t("localStripe.backToApp")}
          </a>
        )}
      </section>
    );
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setDeclined(null);
    const parsed = localCardSchema.safeParse(card);
    if (!parsed.success) {
      const found: Partial<Record<Field, string>> = {};
      for (const issue of parsed.error.issues) {
        const field = issue.path[0] as Field;
        found[field] ??= `localStripe.invalid.${field}`;
      }
      setErrors(found);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const { redirectUrl } = await localStripeApi.pay(id, parsed.data);
      window.location.assign(redirectUrl);
    } catch (err) {
      setBusy(false);
      if (err instanceof ApiClientError && err.status === 422) {
        const code = (err.details as { declineCode?: string } | undefined)?.declineCode ?? "";
        setDeclined(DECLINES.has(code) ? `localStripe.decline.${code}` : "localStripe.decline.generic_decline");
      } else if (err instanceof ApiClientError && err.status === 400) {
        const field = ((err.details as { path?: string }[] | undefined)?.[0]?.path ?? "number") as Field;
        setErrors({ [field]: `localStripe.invalid.${field}` });
      } else setDeclined("localStripe.unavailable");
    }
  };

  const back = async () => {
    setBusy(true);
    try {
      window.location.assign((await localStripeApi.back(id)).redirectUrl);
    } catch {
      window.location.assign(session.cancelUrl);
    }
  };

  return (
    <section className="local-checkout">
      <p className="notice local-checkout-mode">{t("localStripe.testMode")}</p>
      <div className="local-checkout-grid">
        <div className="local-checkout-summary">
          <button type="button" className="link-button" onClick={() => void back()} disabled={busy}>
            ← {t("localStripe.back")}
          </button>
          <p className="muted">{session.productName}</p>
          <p className="local-checkout-amount" data-testid="checkout-amount">
            {amount}
          </p>
          <p>{session.description}</p>
        </div>
        <form className="card local-checkout-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="local-checkout-title">
          <h1 id="local-checkout-title">{t("localStripe.payWithCard")}</h1>
          {session.customerEmail && <TextField label={t("localStripe.email")} value={session.customerEmail} readOnly />}
          <TextField
            label={t("localStripe.cardNumber")}
            inputMode="numeric"
            autoComplete="cc-number"
            placeholder="1234 1234 1234 1234"
            value={card.number}
            error={errors.number && t(errors.number)}
            onChange={(e) => setCard({ ...card, number: groupCardNumber(e.target.value) })}
          />
          <div className="local-checkout-row">
            <TextField
              label={t("localStripe.expiry")}
              inputMode="numeric"
              autoComplete="cc-exp"
              placeholder="MM / YY"
              value={card.expiry}
              error={errors.expiry && t(errors.expiry)}
              onChange={(e) => setCard({ ...card, expiry: formatExpiry(e.target.value) })}
            />
            <TextField
              label={t("localStripe.cvc")}
              inputMode="numeric"
              autoComplete="cc-csc"
              placeholder="CVC"
              maxLength={4}
              value={card.cvc}
              error={errors.cvc && t(errors.cvc)}
              onChange={(e) => setCard({ ...card, cvc: e.target.value.replace(/\D/g, "") })}
            />
          </div>
          <TextField
            label={t("localStripe.nameOnCard")}
            autoComplete="cc-name"
            value={card.name}
            onChange={(e) => setCard({ ...card, name: e.target.value })}
          />
          {declined && (
            <p className="alert" role="alert">
              {t(declined)}
            </p>
          )}
          <button type="submit" className="button button-block button-large" disabled={busy}>
            {busy ? t("localStripe.processing") : t("localStripe.pay", { amount })}
          </button>
          <p className="form-hint">{t("localStripe.cards")}</p>
        </form>
      </div>
    </section>
  );
}
