import type { TFunction } from "i18next";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "../../components/ui/Toast";
import { ApiClientError } from "../../lib/api-client";
import { driverApi, type EngineStatus, platformReason } from "./api";
import { clock, dayAndTime } from "./station-time";

/** What the engine is doing now, in one line (the system card's words). */
export function engineWords(engine: EngineStatus, app: "flex" | "spark", t: TFunction<"driver">, lang: string): string {
  switch (engine.state) {
    case "stopped":
      return t(`dashboard.stopped.${engine.reason}`);
    case "paused":
      return engine.opensAt === null ? t("dashboard.pausedNoWindow") : t("dashboard.paused", { when: dayAndTime(engine.opensAt, engine.timeZone, lang) });
    case "rate_limited":
      return t("dashboard.rateLimited", { time: clock(engine.until, engine.timeZone, lang) });
    case "signature_required":
      return t("dashboard.signatureRequired");
    case "searching":
      return t("dashboard.searching", {
        count: engine.stations,
        time: clock(engine.until, engine.timeZone, lang),
        context: app === "spark" ? "spark" : undefined,
      });
  }
}

/**
 * What the platform's limits mean for the driver, under the engine's words: a lockout ("Rate
 * exceeded") and the forfeits waiting for its end, a stop for a request signature, and an accept
 * hold (a captcha the driver solves on the platform's side, then says so here; or a signature).
 * Announced politely, in the words of what happened: none of it is the driver's fault or an error
 * of ours. Read-only (an administrator acting for the driver), the captcha's button is the driver's.
 */
export function EngineNotices({
  engine,
  app,
  readOnly,
  onChanged,
}: {
  engine: EngineStatus;
  app: "flex" | "spark";
  readOnly: boolean;
  /** Reads the engine again (after "I solved it"). */
  onChanged: () => Promise<unknown>;
}) {
  const { t, i18n } = useTranslation("driver");
  const lang = i18n.language;
  const platform = t(`platform.${app}`);
  const lines: string[] = [];
  if (engine.state === "rate_limited") {
    lines.push(t("dashboard.limits.rateLimitedSince", { time: clock(engine.since, engine.timeZone, lang) }));
    if (engine.forfeitsWaiting > 0) lines.push(t("dashboard.limits.forfeitsWaiting", { count: engine.forfeitsWaiting }));
    lines.push(t("dashboard.limits.serviceRuns"));
  }
  if (engine.state === "signature_required") {
    lines.push(t("dashboard.limits.signatureSince", { when: dayAndTime(engine.since, engine.timeZone, lang) }));
    lines.push(t(engine.signerConfigured ? "dashboard.limits.signer" : "dashboard.limits.noSigner"));
  }
  const hold = "acceptHold" in engine ? engine.acceptHold : null;
  const timeZone = "timeZone" in engine ? engine.timeZone : "UTC";
  if (hold?.reason === "captcha") {
    lines.push(t("dashboard.limits.captcha", { time: clock(hold.since, timeZone, lang) }));
    lines.push(t(readOnly ? "dashboard.limits.captchaDriver" : "dashboard.limits.captchaHow", { platform }));
  }
  if (hold?.reason === "signature") lines.push(t("dashboard.limits.signature", { time: clock(hold.since, timeZone, lang) }));
  if (lines.length === 0) return null;

  return (
    <div className="engine-notices">
      <div className="callout" role="status">
        {lines.map((line) => (
          <p key={line}>{line}</p>
        ))}
      </div>
      {hold?.reason === "captcha" && !readOnly && <CaptchaSolved onChanged={onChanged} />}
    </div>
  );
}

/** "I solved it": the driver solved the platform's captcha; the next matching offer gets one accept try. */
function CaptchaSolved({ onChanged }: { onChanged: () => Promise<unknown> }) {
  const { t } = useTranslation("driver");
  const [sending, setSending] = useState(false);
  const solved = async () => {
    setSending(true);
    try {
      await driverApi.captchaSolved();
      toast.success(t("dashboard.limits.solvedDone"));
    } catch (err) {
      // Nothing held any more (solved meanwhile, or the hold was lifted): said, not an error.
      if (err instanceof ApiClientError && err.status === 409 && platformReason(err) === "no_captcha") toast.success(t("dashboard.limits.noCaptcha"));
      else toast.error(err instanceof ApiClientError ? err.message : t("common:errors.generic"));
    } finally {
      await onChanged();
      setSending(false);
    }
  };
  return (
    <button type="button" className="button button-small" disabled={sending} aria-busy={sending} onClick={() => void solved()}>
      {sending ? t("dashboard.limits.solving") : t("dashboard.limits.solved")}
    </button>
  );
}
