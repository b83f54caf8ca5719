import { useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { DELETE_CONFIRMATION_WORDS, type DeleteReauth } from "../../../shared/account";
import { z } from "../../../shared/zod";
import { FormMessage, PasswordField, TextField } from "../../components/ui/FormField";
import { toast } from "../../components/ui/Toast";
import { ApiClientError } from "../../lib/api-client";
import { apiErrorKey, required, useSchemaForm } from "../../lib/forms";
import { endPushSubscription } from "../../lib/push-subscription";
import { useSession } from "../../lib/session";
import { profileApi } from "./api";

const reasonOf = (err: unknown) => (err instanceof ApiClientError ? (err.details as { reason?: unknown } | undefined)?.reason : undefined);

/**
 * "Delete my account": what goes and what the law makes us keep, then the password (or a texted
 * code for an account without one) and the typed word. The engine stops, the platform is
 * disconnected, every session ends, and the browser is signed out (its push subscription ended).
 */
export function DeleteAccountSection() {
  const { t, i18n } = useTranslation("auth");
  const { signOut } = useSession();
  const navigate = useNavigate();
  const [reauth, setReauth] = useState<DeleteReauth | null>(null);
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<string | null>(null);
  const word = DELETE_CONFIRMATION_WORDS[i18n.language === "es" ? "es" : "en"];
  const schema = useMemo(
    () =>
      z.object({
        secret: required(z.string()),
        confirmation: required(z.string()).refine((value) => value.trim().toUpperCase() === word, "auth:profile.delete.typeWord"),
      }),
    [word],
  );
  const form = useSchemaForm(schema, { secret: "", confirmation: "" });

  const start = async () => {
    setStarting(true);
    setStartError(null);
    try {
      setReauth(await profileApi.startDelete());
    } catch (err) {
      setStartError(t(reasonOf(err) === "administrator" ? "profile.delete.administrator" : apiErrorKey(err, "profile.delete.failed")));
    } finally {
      setStarting(false);
    }
  };

  const submit = form.onSubmit(async ({ secret, confirmation }) => {
    if (!reauth) return;
    try {
      await profileApi.deleteAccount(reauth.method === "password" ? { password: secret, confirmation } : { code: secret, confirmation });
      toast.success(t("profile.delete.done"));
      // The server erased this device's push subscription with the account; the browser ends its own.
      await endPushSubscription();
      await signOut();
      void navigate("/", { replace: true });
    } catch (err) {
      const reason = reasonOf(err);
      if (reason === "wrong_password") form.setFieldError("secret", "auth:profile.delete.wrongPassword");
      else if (reason === "mismatch" || reason === "expired" || reason === "used" || reason === "exhausted")
        form.setFieldError("secret", "auth:errors.codeIncorrect");
      form.setFormError(apiErrorKey(err, "auth:profile.delete.failed"));
    }
  });

  return (
    <div className="profile-section profile-delete">
      <h2>{t("profile.delete.title")}</h2>
      <p>{t("profile.delete.goes")}</p>
      <p>{t("profile.delete.kept")}</p>
      {!reauth ? (
        <>
          {startError && <FormMessage>{startError}</FormMessage>}
          <div className="actions">
            <button type="button" className="button button-danger" disabled={starting} onClick={() => void start()}>
              {t("profile.delete.start")}
            </button>
          </div>
        </>
      ) : (
        <form className="profile-form" onSubmit={submit} noValidate>
          {reauth.method === "password" ? (
            <PasswordField
              {...form.field("secret")}
              label={t("profile.delete.password")}
              autoComplete="current-password"
              showLabel={t("fields.showPassword")}
              hideLabel={t("fields.hidePassword")}
            />
          ) : (
            <TextField
              {...form.field("secret")}
              label={t("profile.delete.code")}
              hint={t("profile.delete.codeSent", { destination: reauth.destination })}
              inputMode="numeric"
              autoComplete="one-time-code"
            />
          )}
          <TextField {...form.field("confirmation")} label={t("profile.delete.confirmLabel", { word })} autoComplete="off" />
          <FormMessage>{form.formError}</FormMessage>
          <div className="actions">
            <button type="submit" className="button button-danger" disabled={form.submitting}>
              {form.submitting ? t("profile.delete.deleting") : t("profile.delete.submit")}
            </button>
            <button type="button" className="button button-secondary" disabled={form.submitting} onClick={() => setReauth(null)}>
              {t("profile.cancel")}
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
