import { useEffect, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { maskPhone } from "../../../shared/phone";
import { FormMessage } from "../../components/ui/FormField";
import { NewPasswordFields } from "../../components/ui/NewPasswordFields";
import { useSchemaForm } from "../../lib/forms";
import type { TokenAnswer } from "../../lib/session";
import { authApi, type Challenge, isChallenge } from "./api";
import { CodeField, ResendButton, useResending } from "./code-entry";
import { challengeErrorKey } from "./code-errors";
import { codeOnlySchema, newPasswordSchema } from "./schemas";

type StepProps = {
  challenge: Challenge;
  /** The phone the person signed in with, for "we sent a code to •••0100". */
  phoneNumber: string;
  onSignedIn: (tokens: TokenAnswer) => void;
  onNext: (next: Challenge) => void;
  onRestart: () => void;
  /** Asks for a new SMS code (a new challenge); absent where a new code cannot be sent. */
  onResend?: () => Promise<void>;
};

/** One sign-in challenge (docs/api.md): SMS code, authenticator code, MFA setup, new password. */
export function ChallengeStep(props: StepProps) {
  // A new challenge (even of the same kind) starts with a fresh form.
  return props.challenge.challenge === "NEW_PASSWORD_REQUIRED" ? (
    <NewPasswordChallenge key={props.challenge.session} {...props} />
  ) : (
    <CodeChallenge key={props.challenge.session} {...props} />
  );
}

function useAnswer({ onSignedIn, onNext }: Pick<StepProps, "onSignedIn" | "onNext">) {
  return (answer: Awaited<ReturnType<typeof authApi.respond>>) => {
    if (isChallenge(answer)) onNext(answer);
    else onSignedIn(answer.tokens);
  };
}

function CodeChallenge({ challenge, phoneNumber, onSignedIn, onNext, onRestart, onResend }: StepProps) {
  const { t } = useTranslation("auth");
  const form = useSchemaForm(codeOnlySchema, { code: "" });
  const answer = useAnswer({ onSignedIn, onNext });
  const [resending, whileResending] = useResending();
  const kind = challenge.challenge;
  const destination = maskPhone(phoneNumber);

  const submit = form.onSubmit(async ({ code }) => {
    try {
      answer(await authApi.respond({ challenge: kind, session: challenge.session, code }));
    } catch (err) {
      form.setFormError(challengeErrorKey(err));
      form.setValue("code", "");
    }
  });

  const resend = async () => {
    if (onResend) await whileResending(onResend);
  };

  const title = kind === "MFA_SETUP" ? t("challenge.setupTitle") : kind === "SOFTWARE_TOKEN_MFA" ? t("challenge.totpTitle") : t("challenge.smsTitle");
  const lead =
    kind === "MFA_SETUP" ? t("challenge.setupLead") : kind === "SOFTWARE_TOKEN_MFA" ? t("challenge.totpLead") : t("challenge.smsLead", { destination });

  return (
    <form className="auth-form" onSubmit={submit} noValidate>
      <h1>{title}</h1>
      <p className="auth-lead">{lead}</p>
      {kind === "MFA_SETUP" && <MfaSetup uri={challenge.parameters?.otpauthUri} secret={challenge.parameters?.secret} />}
      <CodeField {...form.field("code")} autoFocus />
      <FormMessage>{form.formError}</FormMessage>
      <button type="submit" className="button" disabled={form.submitting}>
        {form.submitting ? t("challenge.verifying") : t("challenge.verify")}
      </button>
      <div className="auth-links">
        <button type="button" className="link-button" onClick={onRestart}>
          {t("challenge.startOver")}
        </button>
        {onResend && (kind === "SMS_MFA" || kind === "CUSTOM_CHALLENGE") && <ResendButton resending={resending} onClick={() => void resend()} />}
      </div>
    </form>
  );
}

/** MFA_SETUP: the otpauth URI as a QR code for the authenticator app, and the key to type instead. */
function MfaSetup({ uri, secret }: { uri?: string; secret?: string }) {
  const { t } = useTranslation("auth");
  const [svg, setSvg] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const secretId = useId();
  useEffect(() => {
    if (!uri) return;
    let live = true;
    // The QR encoder is only downloaded by the few who set up an authenticator.
    import("qrcode")
      .then((qr) => qr.toString(uri, { type: "svg", margin: 1, errorCorrectionLevel: "M" }))
      .then((text) => live && setSvg(text))
      .catch((err: unknown) => {
        console.error("Could not draw the QR code", err);
        if (live) setFailed(true);
      });
    return () => {
      live = false;
    };
  }, [uri]);
  const grouped = secret?.replace(/(.{4})/g, "$1 ").trim();
  return (
    <div className="mfa-setup">
      {svg && (
        <img className="qr-code" src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`} alt={t("challenge.qrAlt")} width={200} height={200} />
      )}
      {!svg && !failed && uri && <div className="spinner" role="status" aria-label={t("challenge.qrLoading")} />}
      {grouped && (
        <>
          <p className="form-hint" id={`${secretId}-label`}>
            {t("challenge.setupSecret")}
          </p>
          <p className="totp-secret" aria-describedby={`${secretId}-label`}>
            {grouped}
          </p>
        </>
      )}
    </div>
  );
}

function NewPasswordChallenge({ challenge, onSignedIn, onNext, onRestart }: StepProps) {
  const { t } = useTranslation("auth");
  const form = useSchemaForm(newPasswordSchema, { newPassword: "", confirmPassword: "" });
  const answer = useAnswer({ onSignedIn, onNext });
  const submit = form.onSubmit(async ({ newPassword }) => {
    try {
      answer(await authApi.respond({ challenge: "NEW_PASSWORD_REQUIRED", session: challenge.session, newPassword }));
    } catch (err) {
      form.setFormError(challengeErrorKey(err));
    }
  });
  return (
    <form className="auth-form" onSubmit={submit} noValidate>
      <h1>{t("challenge.newPasswordTitle")}</h1>
      <p className="auth-lead">{t("challenge.newPasswordLead")}</p>
      <NewPasswordFields password={form.field("newPassword")} confirm={form.field("confirmPassword")} autoFocus />
      <FormMessage>{form.formError}</FormMessage>
      <button type="submit" className="button" disabled={form.submitting}>
        {form.submitting ? t("challenge.saving") : t("challenge.savePassword")}
      </button>
      <div className="auth-links">
        <button type="button" className="link-button" onClick={onRestart}>
          {t("challenge.startOver")}
        </button>
      </div>
    </form>
  );
}
