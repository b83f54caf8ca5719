import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { PasswordField } from "../../components/ui/FormField";
import { NewPasswordFields } from "../../components/ui/NewPasswordFields";
import { toast } from "../../components/ui/Toast";
import { ApiClientError } from "../../lib/api-client";
import { apiErrorKey, useSchemaForm } from "../../lib/forms";
import { profileApi } from "./api";
import { FormActions } from "./FormActions";
import { changePasswordSchema } from "./schemas";
import "./profile.css";
import "../../i18n/auth";

/** /profile/password: the current password, then the new one twice. */
export default function ProfilePasswordPage() {
  const { t } = useTranslation("auth");
  const navigate = useNavigate();
  const form = useSchemaForm(changePasswordSchema, { currentPassword: "", newPassword: "", confirmPassword: "" });

  const submit = form.onSubmit(async ({ currentPassword, newPassword }) => {
    try {
      await profileApi.changePassword({ currentPassword, newPassword });
      toast.success(t("profile.passwordChanged"));
      void navigate("/profile");
    } catch (err) {
      const wrongCurrent =
        err instanceof ApiClientError && err.status === 400 && (err.details as { reason?: unknown } | undefined)?.reason === "wrong_password";
      if (wrongCurrent) form.setFieldError("currentPassword", "auth:errors.currentPasswordIncorrect");
      form.setFormError(wrongCurrent ? "auth:errors.currentPasswordIncorrect" : apiErrorKey(err, "auth:errors.couldntChangePassword"));
    }
  });

  const toggle = { showLabel: t("fields.showPassword"), hideLabel: t("fields.hidePassword") };
  return (
    <section className="profile">
      <h1>{t("common:titles.profilePassword")}</h1>
      <form className="profile-form" onSubmit={submit} noValidate>
        <PasswordField {...form.field("currentPassword")} {...toggle} label={t("fields.currentPassword")} autoComplete="current-password" />
        <NewPasswordFields password={form.field("newPassword")} confirm={form.field("confirmPassword")} />
        <FormActions error={form.formError} submitting={form.submitting} submitLabel={t("profile.changePassword")} />
      </form>
    </section>
  );
}
