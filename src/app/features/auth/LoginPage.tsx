import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useLocation, useNavigate } from "react-router";
import { formatUsPhone } from "../../../shared/phone";
import { z } from "../../../shared/zod";
import { FormMessage, PasswordField } from "../../components/ui/FormField";
import { PhoneField } from "../../components/ui/PhoneField";
import { ApiClientError } from "../../lib/api-client";
import { apiErrorKey, useSchemaForm } from "../../lib/forms";
import { useSession } from "../../lib/session";
import { AppChoice } from "./AppChoice";
import { type App, authApi, type Challenge, isChallenge, type SignInAnswer } from "./api";
import { ChallengeStep } from "./ChallengeStep";
import { rememberSignIn } from "./pending-sign-in";
import type { ConfirmPageState, LoginState } from "./route-state";
import { loginSchema, smsLoginSchema } from "./schemas";
import "./auth.css";
import "../../i18n/auth";

type Pending = { challenge: Challenge; phoneNumber: string; app: App };

/**
 * /login: phone + password (or an SMS code instead), then any challenge the server sets. On
 * tokens the session starts, and the route's guard sends the person where they belong. The landing
 * page shows the same form `embedded` beside its own heading (so it titles itself with an h2).
 */
export default function LoginPage({ embedded = false }: { embedded?: boolean }) {
  const Heading = embedded ? "h2" : "h1";
  const { t } = useTranslation("auth");
  const { signIn } = useSession();
  const navigate = useNavigate();
  const state = (useLocation().state ?? {}) as LoginState;
  const [mode, setMode] = useState<"password" | "sms">("password");
  const [pending, setPending] = useState<Pending | null>(null);
  const [notice, setNotice] = useState(state.notice);

  // The password is only asked (and checked) in password mode; an SMS sign-in ignores it.
  const form = useSchemaForm(mode === "password" ? loginSchema : smsLoginSchema.extend({ password: z.string() }), {
    phoneNumber: formatUsPhone(state.phoneNumber) || (state.phoneNumber ?? ""),
    password: "",
    app: state.app ?? "flex",
  });
  const app = form.watch("app");

  const handle = (answer: SignInAnswer, phoneNumber: string, chosenApp: App) => {
    if (isChallenge(answer)) setPending({ challenge: answer, phoneNumber, app: chosenApp });
    else signIn(answer.tokens);
  };

  const submit = form.onSubmit(async (data) => {
    setNotice(undefined);
    try {
      const { phoneNumber, app: chosenApp, password } = data;
      const answer =
        mode === "password" ? await authApi.signIn({ phoneNumber, app: chosenApp, password }) : await authApi.signInWithSms({ phoneNumber, app: chosenApp });
      handle(answer, phoneNumber, chosenApp);
    } catch (err) {
      // The right password of an account whose phone is not confirmed yet: a code is resent (a
      // failure only logged) and the confirm screen signs in with this password once the code is in.
      if (
        err instanceof ApiClientError &&
        err.status === 403 &&
        (err.details as { reason?: unknown } | undefined)?.reason === "unconfirmed" &&
        "password" in data
      ) {
        const { phoneNumber, app: chosenApp } = data;
        rememberSignIn(phoneNumber, chosenApp, String(data.password));
        await authApi
          .resendCode({ phoneNumber, app: chosenApp })
          .catch((resendError: unknown) => console.error("Could not resend the confirmation code", resendError));
        const confirmState: ConfirmPageState = { phoneNumber, app: chosenApp, reason: "unverified" };
        void navigate("/confirm-account", { state: confirmState });
        return;
      }
      // 401 is the one answer for an unknown phone and a wrong password: no account enumeration.
      const wrong = err instanceof ApiClientError && (err.status === 401 || err.status === 404);
      form.setFormError(
        wrong
          ? mode === "password"
            ? "common:errors.phoneOrPasswordIncorrect"
            : "common:errors.couldntSignIn"
          : apiErrorKey(err, "common:errors.couldntSignIn"),
      );
    }
  });

  if (pending) {
    const resend =
      pending.challenge.challenge === "CUSTOM_CHALLENGE"
        ? async () => {
            try {
              handle(await authApi.signInWithSms({ phoneNumber: pending.phoneNumber, app: pending.app }), pending.phoneNumber, pending.app);
            } catch (err) {
              console.error("Could not send a new sign-in code", err);
            }
          }
        : undefined;
    return (
      <ChallengeStep
        challenge={pending.challenge}
        phoneNumber={pending.phoneNumber}
        onSignedIn={signIn}
        onNext={(next) => setPending({ ...pending, challenge: next })}
        onRestart={() => setPending(null)}
        onResend={resend}
      />
    );
  }

  const switchMode = () => {
    setMode((m) => (m === "password" ? "sms" : "password"));
    form.setFormError(null);
    form.clearErrors();
  };

  return (
    <form className="auth-form" onSubmit={submit} noValidate>
      <Heading>{t("common:titles.login")}</Heading>
      {notice === "confirmed" && <FormMessage kind="success">{t("login.confirmed")}</FormMessage>}
      {notice === "passwordReset" && <FormMessage kind="success">{t("login.passwordReset")}</FormMessage>}
      <AppChoice value={app} onChange={(value) => form.setValue("app", value)} disabled={form.submitting} />
      <PhoneField {...form.field("phoneNumber")} label={t("fields.phone")} />
      {mode === "password" ? (
        <PasswordField
          {...form.field("password")}
          label={t("fields.password")}
          autoComplete="current-password"
          showLabel={t("fields.showPassword")}
          hideLabel={t("fields.hidePassword")}
        />
      ) : (
        <p className="form-hint">{t("login.smsHint")}</p>
      )}
      <FormMessage>{form.formError}</FormMessage>
      <button type="submit" className="button" disabled={form.submitting}>
        {mode === "password" ? (form.submitting ? t("login.submitting") : t("login.submit")) : form.submitting ? t("login.sendingCode") : t("login.sendCode")}
      </button>
      <button type="button" className="link-button auth-switch" onClick={switchMode}>
        {mode === "password" ? t("login.withSms") : t("login.withPassword")}
      </button>
      <div className="auth-links">
        <Link to="/forgot-password" state={{ phoneNumber: form.watch("phoneNumber"), app }}>
          {t("login.forgot")}
        </Link>
        <Link to="/register">{t("login.register")}</Link>
      </div>
    </form>
  );
}
