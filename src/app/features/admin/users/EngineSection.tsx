import { useState } from "react";
import { useTranslation } from "react-i18next";
import type { UserDetail } from "../../../../shared/admin-users";
import { useConfirm } from "../../../components/ui/Dialog";
import { USERS_NS } from "../../../i18n/admin-users";
import { ApiClientError } from "../../../lib/api-client";
import { formatDateTime } from "../format";
import { clearEngineHold, type UserEngine, useUserEngine } from "./api";

/** Whether support can clear something: a stop for the platform's request signature, or an accept held for one. */
function hasSignatureHold(engine: UserEngine): boolean {
  return engine.state === "signature_required" || ("acceptHold" in engine && engine.acceptHold?.reason === "signature");
}

/**
 * A driver's capture engine as support needs it: its state (the platform's limits included), since
 * and until when, whether accepting is paused, and "Clear" for a signature hold (confirmed,
 * audited by the server). Days lost to a limit are credited through the service-time ledger.
 */
export function EngineSection({ user, billing }: { user: UserDetail; billing: boolean }) {
  const { t } = useTranslation(USERS_NS);
  const read = useUserEngine(String(user.id), true);
  const [confirm, confirmDialog] = useConfirm();
  const [clearing, setClearing] = useState(false);
  const [result, setResult] = useState<{ error: string | null; done: string | null }>({ error: null, done: null });
  const engine = read.data?.engine;

  const clear = async () => {
    const ok = await confirm({ title: t("engine.clearTitle", { name: user.name }), message: t("engine.clearMessage"), confirmLabel: t("engine.clear") });
    if (!ok) return;
    setClearing(true);
    setResult({ error: null, done: null });
    try {
      const answer = await clearEngineHold(user.id);
      await read.mutate({ ...read.data!, engine: answer.engine }, { revalidate: false });
      setResult({ error: null, done: t("engine.cleared") });
    } catch (err) {
      const reason = err instanceof ApiClientError ? (err.details as { reason?: unknown } | undefined)?.reason : null;
      if (err instanceof ApiClientError && err.status === 409 && reason === "no_hold") {
        setResult({ error: null, done: t("engine.noHold") });
        await read.mutate();
      } else setResult({ error: err instanceof Error && err.message ? err.message : t("error"), done: null });
    } finally {
      setClearing(false);
    }
  };

  return (
    <section className="user-section" aria-labelledby="engine-heading">
      <h2 id="engine-heading">{t("engine.title")}</h2>
      {read.error && !engine ? (
        <div className="alert" role="alert">
          <p>{t("engine.loadError")}</p>
          <button type="button" className="button button-secondary button-small" onClick={() => void read.mutate()}>
            {t("retry")}
          </button>
        </div>
      ) : !engine ? (
        <p className="muted" role="status">
          {t("loading")}
        </p>
      ) : (
        <>
          <EngineFacts engine={engine} />
          {hasSignatureHold(engine) && (
            <div className="actions">
              <button type="button" className="button button-secondary" disabled={clearing} aria-busy={clearing} onClick={() => void clear()}>
                {clearing ? t("engine.clearing") : t("engine.clear")}
              </button>
            </div>
          )}
          {result.done && (
            <p className="form-success" role="status">
              {result.done}
            </p>
          )}
          {result.error && (
            <p className="alert" role="alert">
              {result.error}
            </p>
          )}
          {(engine.state === "rate_limited" || engine.state === "signature_required") && (
            <p className="muted">{t(billing ? "engine.credit" : "engine.creditBilling")}</p>
          )}
        </>
      )}
      {confirmDialog}
    </section>
  );
}

/** The state in words, with its times in the console's format (the admin's clock). */
function EngineFacts({ engine }: { engine: UserEngine }) {
  const { t } = useTranslation(USERS_NS);
  const facts: [string, string][] = [
    [
      t("engine.state"),
      engine.state === "stopped" ? t("engine.states.stopped", { reason: t(`engine.stopped.${engine.reason}`) }) : t(`engine.states.${engine.state}`),
    ],
  ];
  if (engine.state === "rate_limited") {
    facts.push([t("engine.since"), formatDateTime(engine.since)], [t("engine.until"), formatDateTime(engine.until)]);
    facts.push([t("engine.forfeitsWaiting"), String(engine.forfeitsWaiting)]);
  }
  if (engine.state === "signature_required") {
    facts.push([t("engine.since"), formatDateTime(engine.since)], [t("engine.signer"), engine.signerConfigured ? t("engine.signerYes") : t("engine.signerNo")]);
  }
  if ("acceptHold" in engine) {
    const hold = engine.acceptHold;
    facts.push([
      t("engine.accepting"),
      !hold ? t("engine.acceptOpen") : t(hold.reason === "captcha" ? "engine.acceptCaptcha" : "engine.acceptSignature", { time: formatDateTime(hold.since) }),
    ]);
  }
  return (
    <dl className="facts">
      {facts.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
