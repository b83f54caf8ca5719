import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useNavigate, useSearchParams } from "react-router";
import { REGISTRATION_CONSENT } from "../../../shared/consent-texts";
import { FormMessage, TextField } from "../../components/ui/FormField";
import { NewPasswordFields } from "../../components/ui/NewPasswordFields";
import { PhoneField } from "../../components/ui/PhoneField";
import { ApiClientError } from "../../lib/api-client";
import { apiErrorKey, useSchemaForm } from "../../lib/forms";
import { AppChoice } from "./AppChoice";
import { authApi } from "./api";
import { isUnknownReferral } from "./code-errors";
import { rememberSignIn } from "./pending-sign-in";
import type { ConfirmPageState } from "./route-state";
import { registerSchema } from "./schemas";
import "./auth.css";
import "../../i18n/auth";

/** /register: name, phone, optional email, password twice, app and optional referral code. */
export default function RegisterPage() {
  const { t, i18n } = useTranslation("auth");
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const form = useSchemaForm(registerSchema, {
    name: "",
    phoneNumber: "",
    email: "",
    password: "",
    confirmPassword: "",
    app: params.get("app") === "spark" ? ("spark" as const) : ("flex" as const),
    referralCode: params.get("ref") ?? "",
  });
  const app = form.watch("app");
  // The marketing consent box: optional, unticked by default; its exact wording is recorded (docs/messaging-rules.md).
  const [marketingConsent, setMarketingConsent] = useState(false);
  const consentId = useId();
  const language = i18n.language === "es" ? "es" : "en";

  const submit = form.onSubmit(async ({ confirmPassword: _confirm, ...data }) => {
    try {
      await authApi.register({ ...data, language, ...(marketingConsent ? { marketingConsent: { version: REGISTRATION_CONSENT.version } } : {}) });
      rememberSignIn(data.phoneNumber, data.app, data.password);
      const state: ConfirmPageState = { phoneNumber: data.phoneNumber, app: data.app, reason: "registered" };
      void navigate("/confirm-account", { state });
    } catch (err) {
      const exists = err instanceof ApiClientError && err.status === 409;
      form.setFormError(exists ? "common:errors.accountExists" : apiErrorKey(err, "common:errors.couldntCreateAccount"));
      if (isUnknownReferral(err)) form.setFieldError("referralCode", "auth:errors.referralNotFound");
    }
  });

  return (
    <form className="auth-form" onSubmit={submit} noValidate>
      <h1>{t("common:titles.register")}</h1>
      <AppChoice value={app} onChange={(value) => form.setValue("app", value)} disabled={form.submitting} />
      <TextField {...form.field("name")} label={t("fields.name")} autoComplete="name" />
      <PhoneField {...form.field("phoneNumber")} label={t("fields.phone")} hint={t("fields.phoneHint")} />
      <TextField {...form.field("email")} label={`${t("fields.email")} ${t("fields.optional")}`} type="email" autoComplete="email" inputMode="email" />
      <NewPasswordFields password={form.field("password")} confirm={form.field("confirmPassword")} label={t("fields.password")} />
      <TextField {...form.field("referralCode")} label={`${t("fields.referralCode")} ${t("fields.optional")}`} autoComplete="off" autoCapitalize="characters" />
      <div className="field consent-field">
        <label className="check" htmlFor={consentId}>
          <input
            id={consentId}
            type="checkbox"
            checked={marketingConsent}
            disabled={form.submitting}
            aria-describedby={`${consentId}-hint`}
            onChange={(e) => setMarketingConsent(e.target.checked)}
          />
          <span>{REGISTRATION_CONSENT[language]}</span>
        </label>
        <small id={`${consentId}-hint`} className="muted">
          {t("register.consentHint")}
        </small>
      </div>
      <FormMessage>{form.formError}</FormMessage>
      <button type="submit" className="button" disabled={form.submitting}>
        {form.submitting ? t("register.submitting") : t("register.submit")}
      </button>
      <p className="auth-switch">
        {t("register.haveAccount")} <Link to="/login">{t("register.signIn")}</Link>
      </p>
    </form>
  );
}
