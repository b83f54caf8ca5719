import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { z } from "zod";
import { emailSchema } from "../../../shared/auth";
import { FormMessage, PasswordField, TextField } from "../../components/ui/FormField";
import { StatusView } from "../../components/ui/StatusView";
import { required, useSchemaForm } from "../../lib/forms";
import { useSession } from "../../lib/session";
import { driverApi, useConnection } from "./api";
import { connectError } from "./connect-errors";
import { SignInHandoff } from "./SignInHandoff";
import "./driver.css";
import "../../i18n/auth";
import "../../i18n/driver";

const connectSchema = z.object({ email: required(emailSchema), password: required(z.string()) });

/**
 * /flex/login: connecting the platform account. Flex signs in on the platform's own page and the
 * driver pastes the address it lands on (SignInHandoff); Spark takes the account's email and
 * password here, which go to the platform once and are never stored, and a challenge continues on
 * /flex/otp (a code) or /flex/confirm (an approval on another device). Once connected the routing
 * moves on to filters.
 */
export default function ConnectPage() {
  const { t } = useTranslation("driver");
  const { user } = useSession();
  const connection = useConnection();
  const app = user?.app ?? "flex";
  const platform = t(`platform.${app}`);

  if (connection.isLoading) return <StatusView kind="loading" />;
  const refused = connection.data?.disconnectReason === "refused" && !connection.data.connected;

  return (
    <section className="driver-page driver-narrow">
      <h1>{t("common:titles.flexLogin")}</h1>
      {refused && (
        <div className="notice" role="status">
          {t("connect.refusedBanner", { platform })}
        </div>
      )}
      {app === "flex" ? <SignInHandoff connection={connection.data} platform={platform} /> : <PasswordSignIn platform={platform} />}
    </section>
  );
}

/** Spark's modelled sign-in: the account's email and password. */
function PasswordSignIn({ platform }: { platform: string }) {
  const { t } = useTranslation("driver");
  const { user, reloadUser } = useSession();
  const navigate = useNavigate();
  const form = useSchemaForm(connectSchema, { email: user?.email ?? "", password: "" });

  const submit = form.onSubmit(async ({ email, password }) => {
    try {
      const step = await driverApi.connect(email, password);
      if (step.status === "connected") {
        await reloadUser();
        void navigate("/flex/settings");
      } else if (step.status === "code") void navigate("/flex/otp", { state: { attemptId: step.attemptId, destination: step.destination } });
      else void navigate("/flex/confirm", { state: { attemptId: step.attemptId } });
    } catch (err) {
      const message = connectError(err);
      form.setFormError(message.key, { platform, ...message.values });
    }
  });

  return (
    <>
      <p className="muted">{t("connect.lead", { platform })}</p>
      <form className="driver-form" onSubmit={submit} noValidate>
        <TextField {...form.field("email")} label={t("connect.email", { platform })} type="email" autoComplete="username" inputMode="email" />
        <PasswordField
          {...form.field("password")}
          label={t("connect.password", { platform })}
          autoComplete="current-password"
          showLabel={t("auth:fields.showPassword")}
          hideLabel={t("auth:fields.hidePassword")}
        />
        <FormMessage>{form.formError}</FormMessage>
        <div className="actions">
          <button type="submit" className="button" disabled={form.submitting}>
            {form.submitting ? t("connect.connecting") : t("connect.submit")}
          </button>
        </div>
      </form>
    </>
  );
}
