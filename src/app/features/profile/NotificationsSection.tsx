import { useTranslation } from "react-i18next";
import useSWR from "swr";
import { channelFor, defaultChannel, NOTIFICATION_CHANNELS, NOTIFICATION_EVENTS, type NotificationChannel } from "../../../shared/notifications";
import type { z } from "../../../shared/zod";
import { SelectField } from "../../components/ui/FormField";
import { StatusView } from "../../components/ui/StatusView";
import { toast } from "../../components/ui/Toast";
import { apiErrorKey, useSchemaForm } from "../../lib/forms";
import { type NotificationSettings, profileApi } from "./api";
import { FormActions } from "./FormActions";
import { PushDeviceControl } from "./PushDeviceControl";
import { notificationChoicesSchema } from "./schemas";

type Choices = z.input<typeof notificationChoicesSchema>;

const choicesOf = (channels: NotificationSettings["channels"]): Choices => ({
  blockWon: channels.blockWon ?? "",
  searchStopped: channels.searchStopped ?? "",
  serviceEnding: channels.serviceEnding ?? "",
});

/**
 * The profile's notifications: this device's push subscription, and per event (a block won,
 * searching stopped, service ending) push, SMS, both or none. No choice shows the default, push
 * where the driver has a device and SMS otherwise, and follows it as devices come and go.
 */
export function NotificationsSection() {
  const { t } = useTranslation("auth");
  const settings = useSWR(["profile/notifications"], () => profileApi.notifications());
  return (
    <div className="profile-section">
      <h2>{t("profile.notifications.title")}</h2>
      <p className="muted">{t("profile.notifications.lead")}</p>
      {settings.error ? (
        <StatusView kind="error" compact onRetry={() => void settings.mutate()} />
      ) : !settings.data ? (
        <StatusView kind="loading" compact />
      ) : (
        <>
          <PushDeviceControl
            settings={settings.data}
            // The count at once (the defaults follow it), then the read again for what the server now makes of it.
            onDevices={(devices) => void settings.mutate((current) => current && { ...current, devices })}
          />
          <ChannelsForm settings={settings.data} onSaved={(saved) => void settings.mutate(saved, { revalidate: false })} />
        </>
      )}
    </div>
  );
}

function ChannelsForm({ settings, onSaved }: { settings: NotificationSettings; onSaved: (saved: NotificationSettings) => void }) {
  const { t } = useTranslation("auth");
  const stored = choicesOf(settings.channels);
  const form = useSchemaForm(notificationChoicesSchema, stored);
  const chosen = form.watch();
  const hasDevice = settings.devices > 0;
  const channelName = (channel: NotificationChannel) => t(`profile.notifications.channels.${channel}`);

  const submit = form.onSubmit(async (channels) => {
    try {
      const saved = await profileApi.saveNotifications(channels);
      onSaved(saved);
      form.reset(choicesOf(saved.channels));
      toast.success(t("profile.notifications.saved"));
    } catch (err) {
      form.setFormError(apiErrorKey(err, "auth:profile.notifications.saveFailed"));
    }
  });

  return (
    <form className="profile-form" onSubmit={submit} noValidate>
      {NOTIFICATION_EVENTS.map((event) => {
        const channel = channelFor(chosen[event] || null, hasDevice);
        const notes = [
          event === "blockWon" ? null : t(`profile.notifications.eventHints.${event}`),
          settings.smsOptOut && (channel === "sms" || channel === "both") ? t("profile.notifications.smsOptedOut") : null,
          !hasDevice && (channel === "push" || channel === "both") ? t("profile.notifications.noDevice") : null,
        ].filter(Boolean);
        return (
          <SelectField
            key={event}
            // Also the DOM's own default: the registration's alone does not reach a select rendered with its options in happy-dom.
            defaultValue={stored[event]}
            {...form.field(event)}
            label={t(`profile.notifications.events.${event}`)}
            hint={notes.join(" ") || undefined}
          >
            <option value="">{t("profile.notifications.default", { channel: channelName(defaultChannel(hasDevice)) })}</option>
            {NOTIFICATION_CHANNELS.map((option) => (
              <option key={option} value={option}>
                {channelName(option)}
              </option>
            ))}
          </SelectField>
        );
      })}
      <FormActions error={form.formError} submitting={form.submitting} submitLabel={t("profile.save")} onCancel={() => form.reset(stored)} />
    </form>
  );
}
