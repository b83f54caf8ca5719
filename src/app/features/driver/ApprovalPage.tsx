import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useLocation, useNavigate } from "react-router";
import { FormMessage } from "../../components/ui/FormField";
import { StatusView } from "../../components/ui/StatusView";
import { useSession } from "../../lib/session";
import { driverApi, retryAfterSeconds, useConnection } from "./api";
import { connectError, type ScreenMessage } from "./connect-errors";
import "./driver.css";
import "../../i18n/auth";
import "../../i18n/driver";

/** How often the approval is asked about while the page waits. */
const APPROVAL_POLL_MS = 3000;

/**
 * /flex/confirm: waiting while the driver approves the sign-in on another device. It asks every
 * few seconds and moves on by itself once approved; Cancel ends the attempt. Told to slow down
 * (429), it says how long and asks again once that wait is over.
 */
export default function ApprovalPage() {
  const { t } = useTranslation("driver");
  const navigate = useNavigate();
  const { user, reloadUser } = useSession();
  const state = (useLocation().state ?? null) as { attemptId?: string } | null;
  const connection = useConnection();
  const pending = connection.data?.pending?.kind === "approval" ? connection.data.pending : null;
  const attemptId = state?.attemptId ?? pending?.attemptId ?? null;
  const platform = t(`platform.${user?.app ?? "flex"}`);
  const [error, setError] = useState<ScreenMessage | null>(null);
  const done = useRef(false);

  useEffect(() => {
    if (!attemptId) return;
    done.current = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = async () => {
      try {
        const step = await driverApi.checkApproval(attemptId);
        if (done.current) return;
        if (step.status === "connected") {
          done.current = true;
          await reloadUser();
          void navigate("/flex/settings");
          return;
        }
        setError(null);
        timer = setTimeout(() => void ask(), APPROVAL_POLL_MS);
      } catch (err) {
        if (done.current) return;
        const message = connectError(err);
        setError(message);
        // An ended attempt stays ended; a platform that did not answer is asked again, and after a
        // 429 once its wait is over.
        const wait = retryAfterSeconds(err);
        if (wait !== null) timer = setTimeout(() => void ask(), Math.max(APPROVAL_POLL_MS, wait * 1000));
        else if (message.key === "driver:connect.errors.unavailable" || message.key === "auth:errors.network")
          timer = setTimeout(() => void ask(), APPROVAL_POLL_MS);
      }
    };
    void ask();
    return () => {
      done.current = true;
      clearTimeout(timer);
    };
  }, [attemptId, navigate, reloadUser]);

  const cancel = async () => {
    done.current = true;
    if (attemptId) await driverApi.cancelAttempt(attemptId).catch((err: unknown) => console.error("could not cancel the platform sign-in", err));
    void navigate("/flex/login");
  };

  if (!state?.attemptId && connection.isLoading) return <StatusView kind="loading" />;
  if (!attemptId) {
    return (
      <section className="driver-page driver-narrow">
        <h1>{t("common:titles.flexConfirm")}</h1>
        <StatusView kind="empty" title={t("connect.noAttempt")} action={<Link to="/flex/login">{t("connect.startAgain")}</Link>} />
      </section>
    );
  }
  const over = error?.key === "driver:connect.expired" || error?.key === "driver:connect.noAttempt";

  return (
    <section className="driver-page driver-narrow">
      <h1>{t("common:titles.flexConfirm")}</h1>
      <p className="muted">{t("connect.approvalLead", { platform })}</p>
      {!over && <StatusView kind="loading" title={t("connect.waiting")} compact />}
      <FormMessage>{error ? t(error.key, { platform, ...error.values }) : null}</FormMessage>
      <div className="actions">
        <button type="button" className="button button-secondary" onClick={() => void cancel()}>
          {over ? t("connect.startAgain") : t("connect.cancel")}
        </button>
      </div>
    </section>
  );
}
