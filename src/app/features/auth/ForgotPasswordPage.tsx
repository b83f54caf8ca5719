import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useLocation, useNavigate } from "react-router";
import { formatUsPhone } from "../../../shared/phone";
import { FormMessage } from "../../components/ui/FormField";
import { NewPasswordFields } from "../../components/ui/NewPasswordFields";
import { PhoneField } from "../../components/ui/PhoneField";
import { toast } from "../../components/ui/Toast";
import { apiErrorKey, useSchemaForm } from "../../lib/forms";
import { AppChoice } from "./AppChoice";
import { type App, authApi } from "./api";
import { CodeField, ResendButton, useResending } from "./code-entry";
import { codeErrorKey, isCodeRefusal } from "./code-errors";
import type { LoginState } from "./route-state";
import { phoneOnlySchema, resetSchema } from "./schemas";
import "./auth.css";
import "../../i18n/auth";

type Target = { phoneNumber: string; app: App };

/** /forgot-password: ask for a code, then the code and a new password. */
export default function ForgotPasswordPage() {
  const state = (useLocation().state ?? {}) as Partial<Target>;
  const [target, setTarget] = useState<Target | null>(null);
  return target ? (
    <ResetStep target={target} onBack={() => setTarget(null)} />
  ) : (
    <RequestStep initial={{ phoneNumber: formatUsPhone(state.phoneNumber) || (state.phoneNumber ?? ""), app: state.app ?? "flex" }} onSent={setTarget} />
  );
}

function RequestStep({ initial, onSent }: { initial: { phoneNumber: string; app: App }; onSent: (target: Target) => void }) {
  const { t } = useTranslation("auth");
  const form = useSchemaForm(phoneOnlySchema, initial);
  const app = form.watch("app");
  const submit = form.onSubmit(async (data) => {
    try {
      // The server answers the same whether or not the account exists.
      await authApi.forgotPassword(data);
      onSent(data);
    } catch (err) {
      form.setFormError(apiErrorKey(err, "common:errors.errorSendingCode"));
    }
  });
  return (
    <form className="auth-form" onSubmit={submit} noValidate>
      <h1>{t("common:titles.forgotPassword")}</h1>
      <p className="auth-lead">{t("forgot.lead")}</p>
      <AppChoice value={app} onChange={(value) => form.setValue("app", value)} disabled={form.submitting} />
      <PhoneField {...form.field("phoneNumber")} label={t("fields.phone")} />
      <FormMessage>{form.formError}</FormMessage>
      <button type="submit" className="button" disabled={form.submitting}>
        {form.submitting ? t("forgot.sending") : t("forgot.sendCode")}
      </button>
      <div className="auth-links">
        <Link to="/login">{t("forgot.backToSignIn")}</Link>
      </div>
    </form>
  );
}

function ResetStep({ target, onBack }: { target: Target; onBack: () => void }) {
  const { t } = useTranslation("auth");
  const navigate = useNavigate();
  const [resending, whileResending] = useResending();
  const form = useSchemaForm(resetSchema, { code: "", newPassword: "", confirmPassword: "" });

  const submit = form.onSubmit(async ({ code, newPassword }) => {
    try {
      await authApi.resetPassword({ ...target, code, newPassword });
      const state: LoginState = { ...target, notice: "passwordReset" };
      void navigate("/login", { replace: true, state });
    } catch (err) {
      if (isCodeRefusal(err)) form.setFieldError("code", codeErrorKey(err, "auth:errors.codeIncorrect"));
      form.setFormError(apiErrorKey(err, "auth:errors.couldntResetPassword"));
    }
  });

  const resend = () =>
    whileResending(async () => {
      try {
        await authApi.forgotPassword(target);
        toast.success(t("confirm.codeSent"));
      } catch (err) {
        form.setFormError(apiErrorKey(err, "common:errors.errorSendingCode"));
      }
    });

  return (
    <form className="auth-form" onSubmit={submit} noValidate>
      <h1>{t("common:titles.forgotPassword")}</h1>
      <p className="auth-lead">{t("forgot.codeLead", { phone: formatUsPhone(target.phoneNumber) })}</p>
      <CodeField {...form.field("code")} autoFocus />
      <NewPasswordFields password={form.field("newPassword")} confirm={form.field("confirmPassword")} />
      <FormMessage>{form.formError}</FormMessage>
      <button type="submit" className="button" disabled={form.submitting}>
        {form.submitting ? t("forgot.resetting") : t("forgot.reset")}
      </button>
      <div className="auth-links">
        <button type="button" className="link-button" onClick={onBack}>
          {t("forgot.otherPhone")}
        </button>
        <ResendButton resending={resending} onClick={() => void resend()} />
      </div>
    </form>
  );
}
