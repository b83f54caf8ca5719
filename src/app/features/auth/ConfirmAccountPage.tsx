import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useLocation, useNavigate } from "react-router";
import { phoneSchema } from "../../../shared/auth";
import { formatUsPhone } from "../../../shared/phone";
import { FormMessage } from "../../components/ui/FormField";
import { PhoneField } from "../../components/ui/PhoneField";
import { toast } from "../../components/ui/Toast";
import { ApiClientError } from "../../lib/api-client";
import { apiErrorKey, useSchemaForm } from "../../lib/forms";
import { useSession } from "../../lib/session";
import { AppChoice } from "./AppChoice";
import { type App, authApi, type Challenge, isChallenge } from "./api";
import { ChallengeStep } from "./ChallengeStep";
import { CodeField, ResendButton, useResending } from "./code-entry";
import { codeErrorKey, isCodeRefusal } from "./code-errors";
import { rememberSignIn, takeSignIn } from "./pending-sign-in";
import type { ConfirmPageState, LoginState } from "./route-state";
import { confirmSchema } from "./schemas";
import "./auth.css";
import "../../i18n/auth";

/** Codes are throttled on the server; the button waits this long between sends. */
export const RESEND_COOLDOWN_S = 30;

function useCooldown(initial: number) {
  const [left, setLeft] = useState(initial);
  useEffect(() => {
    if (left <= 0) return;
    const timer = setTimeout(() => setLeft((s) => s - 1), 1000);
    return () => clearTimeout(timer);
  }, [left]);
  return [left, setLeft] as const;
}

/**
 * /confirm-account: the SMS code that proves the phone, with a resend. Confirming signs in: with
 * the password this tab registered (or signed in) with, at once; without it (another tab, a
 * reload, someone confirming a phone another person registered), the server asks for a new
 * password first, which is then the account's.
 */
export default function ConfirmAccountPage() {
  const { t } = useTranslation("auth");
  const navigate = useNavigate();
  const { claims, session, signIn } = useSession();
  const [pending, setPending] = useState<{ challenge: Challenge; phoneNumber: string } | null>(null);
  const state = (useLocation().state ?? {}) as ConfirmPageState;
  const knownPhone = state.phoneNumber ?? claims?.phone_number ?? "";
  const askPhone = !knownPhone;
  const form = useSchemaForm(confirmSchema, { phoneNumber: knownPhone, app: state.app ?? claims?.app ?? "flex", code: "" });
  const app = form.watch("app");
  const [cooldown, setCooldown] = useCooldown(state.reason ? RESEND_COOLDOWN_S : 0);
  const [resending, whileResending] = useResending();

  const toLogin = (phoneNumber: string, chosenApp: App) => {
    const loginState: LoginState = { phoneNumber, app: chosenApp, notice: "confirmed" };
    void navigate("/login", { replace: true, state: loginState });
  };

  const submit = form.onSubmit(async ({ phoneNumber, app: chosenApp, code }) => {
    const password = takeSignIn(phoneNumber, chosenApp) ?? undefined;
    try {
      const answer = await authApi.confirm({ phoneNumber, app: chosenApp, code, password });
      if (isChallenge(answer)) {
        if (answer.challenge === "NEW_PASSWORD_REQUIRED") toast.success(t("confirm.newPasswordLead"));
        setPending({ challenge: answer, phoneNumber });
      } else if ("tokens" in answer) signIn(answer.tokens);
      else toLogin(phoneNumber, chosenApp);
    } catch (err) {
      // The code was not used: keep the password for the next try.
      if (password) rememberSignIn(phoneNumber, chosenApp, password);
      // 409: confirmed already (a second tab, a double submit): sign in as usual.
      if (err instanceof ApiClientError && err.status === 409) return toLogin(phoneNumber, chosenApp);
      form.setFormError(apiErrorKey(err, "common:errors.couldntConfirmAccount"));
      if (isCodeRefusal(err)) form.setFieldError("code", codeErrorKey(err, "auth:errors.codeIncorrect"));
    }
  });

  if (pending) {
    return (
      <ChallengeStep
        challenge={pending.challenge}
        phoneNumber={pending.phoneNumber}
        onSignedIn={signIn}
        onNext={(next) => setPending({ ...pending, challenge: next })}
        onRestart={() => toLogin(pending.phoneNumber, app)}
      />
    );
  }

  const resend = async () => {
    // A new code needs a valid phone, whatever the code field holds.
    if (!(await form.trigger("phoneNumber"))) return;
    const phone = phoneSchema.safeParse(form.getValues("phoneNumber"));
    if (!phone.success) return;
    form.setFormError(null);
    await whileResending(async () => {
      try {
        await authApi.resendCode({ phoneNumber: phone.data, app });
        toast.success(t("confirm.codeSent"));
        setCooldown(RESEND_COOLDOWN_S);
      } catch (err) {
        form.setFormError(apiErrorKey(err, "common:errors.errorSendingCode"));
      }
    });
  };

  return (
    <form className="auth-form" onSubmit={submit} noValidate>
      <h1>{t("common:titles.confirmAccount")}</h1>
      {state.reason === "unverified" && <FormMessage kind="info">{t("common:errors.confirmAccountToContinue")}</FormMessage>}
      {askPhone ? (
        <>
          <p className="auth-lead">{t("confirm.leadNoPhone")}</p>
          <AppChoice value={app} onChange={(value) => form.setValue("app", value)} disabled={form.submitting} />
          <PhoneField {...form.field("phoneNumber")} label={t("fields.phone")} />
        </>
      ) : (
        <p className="auth-lead">{t("confirm.lead", { phone: formatUsPhone(knownPhone) || knownPhone })}</p>
      )}
      <CodeField {...form.field("code")} autoFocus={!askPhone} />
      <FormMessage>{form.formError}</FormMessage>
      <button type="submit" className="button" disabled={form.submitting}>
        {form.submitting ? t("confirm.submitting") : t("confirm.submit")}
      </button>
      <div className="resend-row">
        <ResendButton resending={resending} cooldown={cooldown} onClick={() => void resend()} />
      </div>
      {!session && (
        <p className="auth-switch">
          <Link to="/login">{t("register.signIn")}</Link>
        </p>
      )}
    </form>
  );
}
