import type { TFunction } from "i18next";
import type { NavigateFunction } from "react-router";
import type { ConfirmOptions } from "../../components/ui/Dialog";
import { toast } from "../../components/ui/Toast";
import { type CampaignRequest, type CreatedCampaign, createCampaign, serverMessage } from "./api";
import "./send.css";

/** useConfirm's ask function (components/ui/Dialog). */
export type Confirm = (options: ConfirmOptions) => Promise<boolean>;

/** What the confirm dialog sums up before a send. */
export type SendSummary = {
  channel: "sms" | "whatsapp";
  /** The SMS text as it will go out, or null for a template. */
  message: string | null;
  /** The WhatsApp template's name and language, or null for a text. */
  template: string | null;
  /** Who: the panel's audience ("drivers", "invitations") or a typed list. */
  audience: "drivers" | "invitations" | "list";
  /** The panel's filters that narrow the audience, in words (none for a typed list). */
  filters?: FilterLine[];
  recipients: number;
};

/** One filter as the confirm dialog shows it: its label and its value in words. */
export type FilterLine = { label: string; value: string };

/** The confirm dialog's question: channel, message or template, filters, audience and the exact count. */
export function sendConfirmation(summary: SendSummary, t: TFunction<"admin">): ConfirmOptions {
  return {
    title: t("send.confirmTitle", { count: summary.recipients }),
    message: (
      <dl className="send-summary">
        <dt>{t("send.summary.channel")}</dt>
        <dd>{summary.channel === "whatsapp" ? "WhatsApp" : "SMS"}</dd>
        {summary.template !== null ? (
          <>
            <dt>{t("send.summary.template")}</dt>
            <dd>{summary.template}</dd>
          </>
        ) : (
          <>
            <dt>{t("send.summary.message")}</dt>
            <dd className="send-summary-message">{summary.message}</dd>
          </>
        )}
        {summary.filters && (
          <>
            <dt>{t("send.summary.filters")}</dt>
            <dd>
              {summary.filters.length === 0 ? (
                t("send.summary.noFilters")
              ) : (
                <ul className="send-summary-filters">
                  {summary.filters.map((f) => (
                    <li key={f.label}>
                      {f.label}: {f.value}
                    </li>
                  ))}
                </ul>
              )}
            </dd>
          </>
        )}
        <dt>{t("send.summary.audience")}</dt>
        <dd>{t(`send.summary.audiences.${summary.audience}`, { count: summary.recipients })}</dd>
      </dl>
    ),
    confirmLabel: t("send.confirmButton", { count: summary.recipients }),
  };
}

/**
 * Confirm in the app's dialog, a loading toast that is always dismissed, then the server's message
 * ("Message sent successfully to N users.", and who waits or is skipped and why; the specification's
 * sentence in the admin's language if the answer has none) and on to the campaign's page, where
 * each message shows as sent or failed when it is; or the server's error (or ours), staying put.
 * Resolves to the created campaign, or null when cancelled or failed.
 */
export async function confirmAndSend(
  body: CampaignRequest,
  summary: SendSummary,
  t: TFunction<"admin">,
  navigate: NavigateFunction,
  confirm: Confirm,
): Promise<CreatedCampaign | null> {
  if (!(await confirm(sendConfirmation(summary, t)))) return null;
  const loading = toast.loading(t("send.sending"));
  try {
    const created = await createCampaign(body);
    // The server's own words: how many go now, wait for their hours, or are skipped and why.
    toast.success(created.message || t("send.sent", { count: created.campaign.total }));
    void navigate(`/admin/campaigns/${created.campaign.id}`);
    return created;
  } catch (err) {
    toast.error(serverMessage(err, t) ?? t("errors.generic"));
    return null;
  } finally {
    toast.dismiss(loading);
  }
}
