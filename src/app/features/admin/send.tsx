import type { TFunction } from "i18next";
import type { NavigateFunction } from "react-router";
import { EXCLUSION_REASONS, type ExclusionReason } from "../../../shared/campaigns";
import type { ConfirmOptions } from "../../components/ui/Dialog";
import { toast } from "../../components/ui/Toast";
import i18n from "../../i18n";
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

/** A reason a recipient is skipped, as the review names it. */
const reasonKey = (reason: ExclusionReason) => `review.reasons.${reason}` as const;

/**
 * What a send answered, in the admin's language: the server's own message in English (the
 * specification's sentence, then who goes now, waits for their allowed hours or is skipped and
 * why); in another language the same, worded from the answer's figures.
 */
export function sentText(created: Pick<CreatedCampaign, "message" | "outcome" | "campaign">, t: TFunction<"admin">): string {
  const outcome = created.outcome;
  if (i18n.language === "en" && created.message) return created.message;
  const first = t("send.sent", { count: outcome?.total ?? created.campaign.total });
  if (!outcome) return first;
  const skipped = EXCLUSION_REASONS.reduce((sum, r) => sum + outcome.excluded[r], 0);
  if (skipped === 0 && outcome.deferred === 0) return first;
  const parts = [t("send.outcome.now", { count: outcome.sendNow })];
  if (outcome.deferred > 0) parts.push(t("send.outcome.deferred", { count: outcome.deferred }));
  if (skipped > 0) {
    const why = EXCLUSION_REASONS.filter((r) => outcome.excluded[r] > 0).map((r) => `${t(reasonKey(r))}: ${outcome.excluded[r]}`);
    parts.push(t("send.outcome.skipped", { count: skipped, why: why.join(", ") }));
  }
  return `${first} ${parts.join(", ")}.`;
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
    toast.success(sentText(created, t));
    void navigate(`/admin/campaigns/${created.campaign.id}`);
    return created;
  } catch (err) {
    toast.error(serverMessage(err, t) ?? t("errors.generic"));
    return null;
  } finally {
    toast.dismiss(loading);
  }
}
