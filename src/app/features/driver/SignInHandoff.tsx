import { useCallback, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { z } from "zod";
import { FormMessage, TextField } from "../../components/ui/FormField";
import { StatusView } from "../../components/ui/StatusView";
import { required, useSchemaForm } from "../../lib/forms";
import { useSession } from "../../lib/session";
import { type ConnectionView, driverApi, type SignInAttempt } from "./api";
import { connectError, handoffError, type ScreenMessage } from "./connect-errors";

/** The longest address the Worker takes; anything longer is not the landing page. */
const MAX_LANDING_URL = 4096;

const landingSchema = z.object({ landingUrl: required(z.string().trim().max(MAX_LANDING_URL, "driver:connect.errors.not_landing")) });

type Attempt = Pick<SignInAttempt, "attemptId" | "signInUrl" | "expiresAt">;

/**
 * The sign-in attempt the page works with: the pending one from the connection's answer when it is
 * still good (a reload resumes it, link and all), else a new one (also when the connection could
 * not be read: a new attempt replaces any earlier one).
 * `over` once it has expired here, or the Worker said it can no longer be used.
 */
function useSignInAttempt(connection: ConnectionView | undefined) {
  const [attempt, setAttempt] = useState<Attempt | null>(null);
  const [over, setOver] = useState(false);
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<ScreenMessage | null>(null);
  const settled = useRef(false);

  const start = useCallback(async (): Promise<Attempt | null> => {
    setStarting(true);
    setStartError(null);
    try {
      const next = await driverApi.startSignIn();
      setAttempt(next);
      setOver(false);
      return next;
    } catch (err) {
      setStartError(connectError(err));
      return null;
    } finally {
      setStarting(false);
    }
  }, []);

  useEffect(() => {
    // Once: the connection is read again when the driver comes back from the platform's tab.
    if (settled.current) return;
    settled.current = true;
    const pending = connection?.pending;
    if (pending?.kind === "handoff" && pending.expiresAt > Date.now()) setAttempt(pending);
    else void start();
  }, [connection, start]);

  useEffect(() => {
    if (!attempt || over) return;
    const timer = setTimeout(() => setOver(true), Math.max(0, attempt.expiresAt - Date.now()));
    return () => clearTimeout(timer);
  }, [attempt, over]);

  return { attempt, over, starting, startError, start, end: () => setOver(true) };
}

/** Where the platform's sign-in lands: its sign-in page's address with /ap/maplanding for /ap/signin. */
function landingPrefix(signInUrl: string): string | null {
  const page = signInUrl.split("?")[0] ?? "";
  return /\/ap\/signin$/.test(page) ? page.replace(/\/ap\/signin$/, "/ap/maplanding") : null;
}

/**
 * Flex's connection, through the platform's own sign-in page: (1) the driver opens it in a new tab
 * and signs in there (its password, two-step verification and captcha never reach us), then (2)
 * pastes the address of the page it lands on, whose one-time code the Worker exchanges for the
 * account's tokens. Each refusal says what to do and offers a new sign-in link.
 */
export function SignInHandoff({ connection, platform }: { connection: ConnectionView | undefined; platform: string }) {
  const { t } = useTranslation("driver");
  const { reloadUser } = useSession();
  const navigate = useNavigate();
  const { attempt, over, starting, startError, start, end } = useSignInAttempt(connection);
  const form = useSchemaForm(landingSchema, { landingUrl: "" });
  const [restartable, setRestartable] = useState(false);
  const [renewed, setRenewed] = useState(false);
  const link = useRef<HTMLAnchorElement>(null);

  const submit = form.onSubmit(async ({ landingUrl }) => {
    if (!attempt) return;
    setRestartable(false);
    setRenewed(false);
    try {
      await driverApi.sendLanding(attempt.attemptId, landingUrl);
      await reloadUser();
      void navigate("/flex/settings");
    } catch (err) {
      const message = handoffError(err);
      if (message.over) end();
      setRestartable(message.restart);
      form.setFormError(message.key, { platform, ...message.values });
    }
  });

  const restart = async () => {
    if (!(await start())) return;
    form.reset({ landingUrl: "" });
    form.setFormError(null);
    setRestartable(false);
    setRenewed(true);
    // The button that asked is gone: the keyboard goes on from the new link.
    requestAnimationFrame(() => link.current?.focus());
  };
  const restartButton = (
    <button type="button" className="button button-secondary" onClick={() => void restart()} disabled={starting}>
      {t("connect.handoff.newLink")}
    </button>
  );
  const prefix = attempt ? landingPrefix(attempt.signInUrl) : null;

  return (
    <>
      <p className="muted">{t("connect.handoff.lead", { platform })}</p>
      <ol className="connect-steps">
        <li className="card connect-step">
          <h2>{t("connect.handoff.step1Title", { platform })}</h2>
          <p>{t("connect.handoff.step1", { platform })}</p>
          {startError ? (
            <>
              <FormMessage>{t(startError.key, { platform, ...startError.values })}</FormMessage>
              <div className="actions">
                <button type="button" className="button" onClick={() => void restart()} disabled={starting}>
                  {t("connect.handoff.getLink")}
                </button>
              </div>
            </>
          ) : !attempt ? (
            <StatusView kind="loading" compact title={t("connect.handoff.preparing")} />
          ) : over ? (
            <>
              <p className="notice" role="status">
                {t("connect.handoff.linkOver")}
              </p>
              {!restartable && <div className="actions">{restartButton}</div>}
            </>
          ) : (
            <>
              <div className="actions">
                <a ref={link} className="button" href={attempt.signInUrl} target="_blank" rel="noopener noreferrer">
                  {t("connect.handoff.open", { platform })}
                  <span className="visually-hidden"> {t("connect.handoff.newTab")}</span>
                </a>
              </div>
              {renewed && (
                <p className="form-success" role="status">
                  {t("connect.handoff.renewed", { platform })}
                </p>
              )}
            </>
          )}
        </li>
        <li className="card connect-step">
          <h2>{t("connect.handoff.step2Title")}</h2>
          <p>{t("connect.handoff.step2", { platform })}</p>
          <form className="driver-form" onSubmit={submit} noValidate>
            <TextField
              {...form.field("landingUrl")}
              label={t("connect.handoff.address")}
              hint={prefix ? t("connect.handoff.addressHint", { prefix }) : undefined}
              type="url"
              inputMode="url"
              autoComplete="off"
              autoCapitalize="off"
              spellCheck={false}
            />
            <FormMessage>{form.formError}</FormMessage>
            <div className="actions">
              <button type="submit" className="button" disabled={form.submitting || !attempt}>
                {form.submitting ? t("connect.connecting") : t("connect.submit")}
              </button>
              {restartable && restartButton}
            </div>
          </form>
        </li>
      </ol>
    </>
  );
}
