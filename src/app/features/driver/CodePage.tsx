import { useTranslation } from "react-i18next";
import { Link, useLocation, useNavigate } from "react-router";
import { z } from "zod";
import { codeSchema } from "../../../shared/auth";
import { FormMessage, TextField } from "../../components/ui/FormField";
import { StatusView } from "../../components/ui/StatusView";
import { required, useSchemaForm } from "../../lib/forms";
import { useSession } from "../../lib/session";
import { driverApi, platformReason, useConnection } from "./api";
import { connectError } from "./connect-errors";
import "./driver.css";
import "../../i18n/auth";
import "../../i18n/driver";

const codeForm = z.object({ code: required(codeSchema) });

/** /flex/otp: the platform's verification code, for the sign-in started on /flex/login. */
export default function CodePage() {
  const { t } = useTranslation("driver");
  const navigate = useNavigate();
  const { user, reloadUser } = useSession();
  const state = (useLocation().state ?? null) as { attemptId?: string; destination?: string | null } | null;
  const connection = useConnection();
  const pending = connection.data?.pending?.kind === "code" ? connection.data.pending : null;
  const attemptId = state?.attemptId ?? pending?.attemptId ?? null;
  const destination = state?.destination ?? pending?.destination ?? null;
  const platform = t(`platform.${user?.app ?? "flex"}`);
  const form = useSchemaForm(codeForm, { code: "" });

  const submit = form.onSubmit(async ({ code }) => {
    if (!attemptId) return;
    try {
      await driverApi.answerCode(attemptId, code);
      await reloadUser();
      void navigate("/flex/settings");
    } catch (err) {
      if (platformReason(err) === "refused") form.setFieldError("code", "driver:connect.errors.code");
      else {
        const message = connectError(err);
        form.setFormError(message.key, { platform, ...message.values });
      }
    }
  });

  if (!state?.attemptId && connection.isLoading) return <StatusView kind="loading" />;
  if (!attemptId) {
    return (
      <section className="driver-page driver-narrow">
        <h1>{t("common:titles.flexOtp")}</h1>
        <StatusView kind="empty" title={t("connect.noAttempt")} action={<Link to="/flex/login">{t("connect.startAgain")}</Link>} />
      </section>
    );
  }

  return (
    <section className="driver-page driver-narrow">
      <h1>{t("common:titles.flexOtp")}</h1>
      <p className="muted">{destination ? t("connect.codeLead", { platform, destination }) : t("connect.codeLeadNoDestination", { platform })}</p>
      <form className="driver-form" onSubmit={submit} noValidate>
        <TextField
          {...form.field("code")}
          onChange={(e) => form.setValue("code", e.target.value.replace(/\D/g, "").slice(0, 6))}
          label={t("connect.code")}
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={6}
          placeholder="123456"
        />
        <FormMessage>{form.formError}</FormMessage>
        <div className="actions">
          <button type="submit" className="button" disabled={form.submitting}>
            {t("connect.verify")}
          </button>
          <Link className="button button-secondary" to="/flex/login">
            {t("connect.startAgain")}
          </Link>
        </div>
      </form>
    </section>
  );
}
