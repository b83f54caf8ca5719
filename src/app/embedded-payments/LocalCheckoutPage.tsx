import { type ChangeEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { useParams } from "react-router";
import { formatCents, localCardSchema } from "../../shared/billing";
import { z } from "../../shared/zod";
import { TextField } from "../components/ui/FormField";
import { StatusView } from "../components/ui/StatusView";
import { ApiClientError } from "../lib/api-client";
import { useSchemaForm } from "../lib/forms";
import { localStripeApi, useLocalSession } from "./api";
import "../i18n/billing";
import "./embedded-payments.css";

type Field = "number" | "expiry" | "cvc";
const FIELDS: readonly string[] = ["number", "expiry", "cvc"] satisfies Field[];
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
 * The card as typed, checked by the server's schema: whatever is wrong with a field, it says the
 * field is invalid in the card forms' own words (billing:localStripe.invalid.<field>).
 */
const cardFormSchema = z.object({ number: z.string(), expiry: z.string(), cvc: z.string(), name: z.string() }).transform((card, ctx) => {
  const parsed = localCardSchema.safeParse(card);
  if (parsed.success) return parsed.data;
  const fields = new Set(parsed.error.issues.map((issue) => String(issue.path[0])).filter((field) => FIELDS.includes(field)));
  for (const field of fields) ctx.addIssue({ code: "custom", path: [field], message: `billing:localStripe.invalid.${field}` });
  return z.NEVER;
});

/**
 * The local checkout (PAYMENTS_PROVIDER = "local"): what Stripe's hosted page does, in test mode.
 * Stripe's test cards succeed or decline as there; a decline keeps the session open for another
 * card; Back returns to the app's cancel address.
 */
export default function LocalCheckoutPage() {
  const { t, i18n } = useTranslation("billing");
  const { id = "" } = useParams();
  const { data, error, mutate } = useLocalSession(id);
  const form = useSchemaForm(cardFormSchema, { number: "", expiry: "", cvc: "", name: "" });
  // Leaving for the app's address: the page stays busy until the browser has gone.
  const [leaving, setLeaving] = useState(false);
  const busy = form.submitting || leaving;

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

  const submit = form.onSubmit(async (card) => {
    try {
      const { redirectUrl } = await localStripeApi.pay(id, card);
      setLeaving(true);
      window.location.assign(redirectUrl);
    } catch (err) {
      if (err instanceof ApiClientError && err.status === 422) {
        const code = (err.details as { declineCode?: string } | undefined)?.declineCode ?? "";
        form.setFormError(DECLINES.has(code) ? `billing:localStripe.decline.${code}` : "billing:localStripe.decline.generic_decline");
      } else if (err instanceof ApiClientError && err.status === 400) {
        const field = ((err.details as { path?: string }[] | undefined)?.[0]?.path ?? "number") as Field;
        form.setFieldError(field, `billing:localStripe.invalid.${field}`);
      } else form.setFormError("billing:localStripe.unavailable");
    }
  });

  const back = async () => {
    setLeaving(true);
    try {
      window.location.assign((await localStripeApi.back(id)).redirectUrl);
    } catch {
      window.location.assign(session.cancelUrl);
    }
  };

  /** A card field that shows what is typed as card forms do (grouped digits, "MM / YY"). */
  const formatted = (name: Field, format: (value: string) => string) => {
    const field = form.field(name);
    return {
      ...field,
      onChange: (event: ChangeEvent<HTMLInputElement>) => {
        event.target.value = format(event.target.value);
        return field.onChange(event);
      },
    };
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
            {...formatted("number", groupCardNumber)}
          />
          <div className="local-checkout-row">
            <TextField label={t("localStripe.expiry")} inputMode="numeric" autoComplete="cc-exp" placeholder="MM / YY" {...formatted("expiry", formatExpiry)} />
            <TextField
              label={t("localStripe.cvc")}
              inputMode="numeric"
              autoComplete="cc-csc"
              placeholder="CVC"
              maxLength={4}
              {...formatted("cvc", (value) => value.replace(/\D/g, ""))}
            />
          </div>
          <TextField label={t("localStripe.nameOnCard")} autoComplete="cc-name" {...form.field("name")} />
          {form.formError && (
            <p className="alert" role="alert">
              {form.formError}
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
