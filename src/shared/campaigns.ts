/**
 * The shapes of the campaign answers (GET /api/admin/campaigns, /campaigns/:id and
 * /campaigns/:id/messages): the Worker builds them, the console reads them.
 */

export const MESSAGE_STATUSES = ["pending", "deferred", "sending", "sent", "delivered", "failed", "skipped"] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
export type MessageCounts = Record<MessageStatus, number>;

export type CampaignStatus = "scheduled" | "queued" | "expanding" | "sending" | "done" | "failed" | "cancelled";

/** Why a recipient is left out of a campaign (docs/messaging-rules.md); the review counts and marks each. */
export const EXCLUSION_REASONS = ["opted_out", "no_consent", "frequency_cap", "whatsapp_marketing_us"] as const;
export type ExclusionReason = (typeof EXCLUSION_REASONS)[number];

export type CampaignView = {
  id: number;
  app: "flex" | "spark";
  channel: "sms" | "whatsapp";
  source: "drivers" | "invitations" | "list" | "retry";
  message: string | null;
  template: { name: string; language: string } | null;
  author: { id: number; name: string };
  status: CampaignStatus;
  category: "marketing" | "transactional";
  purpose: "marketing" | "service" | "payment" | "code";
  language: "en" | "es";
  /** When a scheduled campaign starts (epoch ms); null when it started at once. */
  scheduledAt: number | null;
  /** The earliest and latest instants deferred messages wait for (quiet hours); null when none waits. */
  deferred: { first: number; last: number } | null;
  total: number;
  counts: MessageCounts;
  /**
   * Of the `sending` rows, those in doubt: their send may or may not have gone out (no answer came,
   * or the sender stopped before recording it); each is settled from the provider before anything
   * is sent again (docs/messaging-rules.md, "Sends that got no answer").
   */
  inDoubt: number;
  createdAt: number;
  updatedAt: number;
};

/** One recipient of a campaign, as the ledger shows it. */
export type LedgerRow = {
  phone: string;
  name: string | null;
  status: MessageStatus;
  /** For a deferred message: when the recipient's allowed hours begin. */
  deferredUntil: number | null;
  providerId: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  attempts: number;
  /** The message died in the dead-letter queue. */
  deadLettered: boolean;
  updatedAt: number;
};

/**
 * The figures of a send's answer (POST /api/admin/campaigns), beside its English `message`, so the
 * console can say the same in the admin's language: who goes now, who waits for their allowed
 * hours, who is skipped and why.
 */
export type SendOutcome = { total: number; sendNow: number; deferred: number; excluded: Record<ExclusionReason, number> };

/** What the review says before anything is sent: who is left out and why, and who waits for their allowed hours. */
export type ReviewSummary = {
  total: number;
  excluded: Record<ExclusionReason, number>;
  /** Recipients who will be sent to at once. */
  sendNow: number;
  deferred: { count: number; first: number | null; last: number | null };
  /** When a refusal applies to the whole campaign (WhatsApp marketing to +1), why. */
  refusal: string | null;
};
