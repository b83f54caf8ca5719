import { useState } from "react";
import { useTranslation } from "react-i18next";
import { SelectField } from "../../components/ui/FormField";
import { toast } from "../../components/ui/Toast";
import { ApiClientError } from "../../lib/api-client";
import { driverApi, type Station } from "./api";
import { type ScreenMessage, waitMessage } from "./connect-errors";
import { zoneName } from "./station-time";

type Props = {
  station: Station;
  /** The zones the driver may choose from (the Worker's `zoneChoices`). */
  choices: string[];
  onSaved: (station: Station) => void;
  /** The settings form's message for this station (no zone yet, and picked). */
  error: string | null;
};

/**
 * A station's time zone, which every time of its blocks is read in: shown by name, correctable by
 * the driver (their own correction, back to the default at will), and chosen first where the
 * Worker knows none.
 */
export function StationZone({ station, choices, onSaved, error }: Props) {
  const { t, i18n } = useTranslation("driver");
  const lang = i18n.language;
  const [editing, setEditing] = useState(false);
  const [choice, setChoice] = useState(station.timeZone ?? "");
  const [saving, setSaving] = useState(false);
  // Kept as a key, so a change of language words it again; a refusal the screen has no words for is the server's own.
  const [problem, setProblem] = useState<ScreenMessage | { text: string } | null>(null);
  const needed = station.timeZone === null;
  const options = [...new Set([...(station.timeZone ? [station.timeZone] : []), ...choices])];

  const run = async (call: () => Promise<{ station: Station }>) => {
    setSaving(true);
    setProblem(null);
    try {
      const { station: saved } = await call();
      onSaved(saved);
      setChoice(saved.timeZone ?? "");
      setEditing(false);
      toast.success(t("settings.zoneSaved"));
    } catch (err) {
      const wait = waitMessage(err);
      const unknownZone =
        err instanceof ApiClientError && Array.isArray(err.details) && err.details.some((d: { message?: string }) => d.message === "unknown_zone");
      setProblem(
        wait ??
          (unknownZone
            ? { key: "driver:settings.zoneUnknown", values: {} }
            : err instanceof ApiClientError && err.status < 500
              ? { text: err.message }
              : { key: "driver:settings.zoneFailed", values: {} }),
      );
    } finally {
      setSaving(false);
    }
  };
  const save = () => {
    if (!choice) setProblem({ key: "driver:settings.zoneChoose", values: {} });
    else void run(() => driverApi.setStationZone(station.id, choice));
  };

  if (!needed && !editing) {
    return (
      <p className="station-zone">
        <span className="muted">
          {t("settings.zone", { zone: zoneName(station.timeZone!, lang) })}
          {station.zoneSource === "driver" && ` ${t("settings.zoneYours")}`}
          {station.zoneSource === "driver_area" && ` ${t("settings.zoneFromArea")}`}
        </span>{" "}
        <button type="button" className="link-button" onClick={() => setEditing(true)}>
          {t("settings.zoneChange")}
          <span className="visually-hidden"> {t("settings.zoneOf", { station: station.name })}</span>
        </button>
      </p>
    );
  }
  return (
    <div className="station-zone-edit">
      <SelectField
        label={t("settings.zoneLabel", { station: station.name })}
        value={choice}
        onChange={(e) => setChoice(e.target.value)}
        hint={needed ? t("settings.zoneNeeded") : undefined}
        error={problem ? ("text" in problem ? problem.text : t(problem.key, problem.values)) : error}
      >
        <option value="">{t("settings.zoneChoose")}</option>
        {options.map((zone) => (
          <option key={zone} value={zone}>
            {zoneName(zone, lang)}
          </option>
        ))}
      </SelectField>
      <div className="actions">
        <button type="button" className="button button-small" onClick={save} disabled={saving}>
          {t("settings.zoneSave")}
        </button>
        {station.zoneSource === "driver" && (
          <button
            type="button"
            className="button button-small button-secondary"
            onClick={() => void run(() => driverApi.resetStationZone(station.id))}
            disabled={saving}
          >
            {t("settings.zoneDefault")}
          </button>
        )}
        {!needed && (
          <button
            type="button"
            className="button button-small button-secondary"
            onClick={() => {
              setEditing(false);
              setChoice(station.timeZone ?? "");
              setProblem(null);
            }}
          >
            {t("common:cancel")}
          </button>
        )}
      </div>
    </div>
  );
}
