/**
 * The shapes of the campaign answers (GET /api/admin/campaigns, /campaigns/:id and
 * /campaigns/:id/messages): the Worker builds them, the console reads them.
 */

export const MESSAGE_STATUSES = ["pending", "sending", "sent", "delivered", "failed", "skipped"] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
export type MessageCounts = Record<MessageStatus, number>;

export type CampaignStatus = "queued" | "expanding" | "sending" | "done" | "failed";

export type CampaignView = {
  id: number;
  app: "flex" | "spark";
  channel: "sms" | "whatsapp";
  source: "drivers" | "invitations" | "list" | "retry";
  message: string | null;
  template: { name: string; language: string } | null;
  author: { id: number; name: string };
  status: CampaignStatus;
  total: number;
  counts: MessageCounts;
  createdAt: number;
  updatedAt: number;
};

/** One recipient of a campaign, as the ledger shows it. */
export type LedgerRow = {
  phone: string;
  name: string | null;
  status: MessageStatus;
  providerId: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  attempts: number;
  /** The message died in the dead-letter queue. */
  deadLettered: boolean;
  updatedAt: number;
};
