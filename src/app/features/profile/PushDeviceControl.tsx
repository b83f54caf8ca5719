import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { FormMessage } from "../../components/ui/FormField";
import { StatusView } from "../../components/ui/StatusView";
import { toast } from "../../components/ui/Toast";
import { apiErrorKey } from "../../lib/forms";
import { type PushDevice, PushSetupError, pushDevice, subscribeToPush, subscriptionJson } from "../../lib/push-subscription";
import { type NotificationSettings, profileApi } from "./api";

type DeviceState = { status: "checking" } | PushDevice;

const KEYS = "auth:profile.notifications.device";

/**
 * "Get notifications on this device": whether this browser is subscribed, turning it on (the
 * browser's question is asked on the click, never on load) and off. A subscription found on load is
 * sent again, so a device last used by someone else gets this driver's pushes from now on.
 */
export function PushDeviceControl({ settings, onDevices }: { settings: NotificationSettings; onDevices: (devices: number) => void }) {
  const { t } = useTranslation("auth");
  const [device, setDevice] = useState<DeviceState>({ status: "checking" });
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const { vapidPublicKey, devices } = settings;
  const onDevicesRef = useRef(onDevices);
  onDevicesRef.current = onDevices;

  useEffect(() => {
    let live = true;
    void pushDevice(vapidPublicKey).then(
      (found) => {
        if (!live) return;
        setDevice(found);
        if (found.status !== "on") return;
        profileApi.savePushSubscription(subscriptionJson(found.subscription)).then(
          (answer) => live && onDevicesRef.current(answer.devices),
          (err: unknown) => console.error("Could not send this device's push subscription again", err),
        );
      },
      (err: unknown) => {
        console.error("Could not read this device's push subscription", err);
        if (live) setDevice({ status: "off" });
      },
    );
    return () => {
      live = false;
    };
  }, [vapidPublicKey]);

  const turnOn = async () => {
    setBusy(true);
    setProblem(null);
    try {
      const subscription = await subscribeToPush(vapidPublicKey);
      let answer: { devices: number };
      try {
        answer = await profileApi.savePushSubscription(subscriptionJson(subscription));
      } catch (err) {
        // A subscription the server does not have would show as on here and bring nothing.
        await subscription.unsubscribe().catch(() => false);
        throw err;
      }
      setDevice({ status: "on", subscription });
      onDevices(answer.devices);
      toast.success(t("profile.notifications.device.enabled"));
    } catch (err) {
      const reason = err instanceof PushSetupError ? err.reason : null;
      if (reason === "denied" || reason === "unsupported") setDevice({ status: reason });
      else if (reason === "dismissed") setProblem(`${KEYS}.dismissed`);
      else {
        console.error("Could not turn on push notifications", err);
        setProblem(apiErrorKey(err, `${KEYS}.enableFailed`));
      }
    } finally {
      setBusy(false);
    }
  };

  const turnOff = async (subscription: PushSubscription) => {
    setBusy(true);
    setProblem(null);
    try {
      const answer = await profileApi.removePushSubscription(subscription.endpoint);
      await subscription.unsubscribe();
      setDevice({ status: "off" });
      onDevices(answer.devices);
      toast.success(t("profile.notifications.device.disabled"));
    } catch (err) {
      console.error("Could not turn off push notifications", err);
      setProblem(apiErrorKey(err, `${KEYS}.disableFailed`));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="profile-device">
      <h3>{t("profile.notifications.device.title")}</h3>
      {device.status === "checking" ? (
        <StatusView kind="loading" compact title={t("profile.notifications.device.checking")} />
      ) : device.status === "unsupported" || device.status === "denied" || device.status === "unavailable" ? (
        <FormMessage kind="info">{t(`profile.notifications.device.${device.status}`)}</FormMessage>
      ) : device.status === "on" ? (
        <>
          <p>{t("profile.notifications.device.on")}</p>
          <div className="actions">
            <button type="button" className="button button-secondary" disabled={busy} onClick={() => void turnOff(device.subscription)}>
              {busy ? t("profile.notifications.device.disabling") : t("profile.notifications.device.disable")}
            </button>
          </div>
        </>
      ) : (
        <>
          <p>{t("profile.notifications.device.off")}</p>
          <div className="actions">
            <button type="button" className="button" disabled={busy} onClick={() => void turnOn()}>
              {busy ? t("profile.notifications.device.enabling") : t("profile.notifications.device.enable")}
            </button>
          </div>
        </>
      )}
      {problem && <FormMessage>{t(problem)}</FormMessage>}
      {devices > 0 && <p className="muted">{t("profile.notifications.device.devices", { count: devices })}</p>}
    </div>
  );
}
