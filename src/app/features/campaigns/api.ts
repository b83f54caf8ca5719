import useSWR from "swr";
import { noRetryOn4xx, type Page } from "../../lib/admin-api";
import { swrFetcher, type Query } from "../../lib/api-client";

export type CampaignStatus = "queued" | "expanding" | "sending" | "done" | "failed";
export type MessageStatus = "pending" | "sending" | "sent" | "delivered" | "failed" | "skipped";
export const MESSAGE_STATUSES: MessageStatus[] = ["pending", "sending", "sent", "delivered", "failed", "skipped"];

export type Campaign = {
  id: number;
  app: "flex" | "spark";
  channel: "sms" | "whatsapp";
  source: "drivers" | "invitations" | "list" | "retry";
  message: string | null;
  template: { name: string; language: string } | null;
  author: { id: number; name: string } | null;
  status: CampaignStatus;
  total: number;
  counts: Record<MessageStatus, number>;
  createdAt: number;
};

export type LedgerRow = {
  phone: string;
  name: string | null;
  status: MessageStatus;
  providerId: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  attempts: number;
  updatedAt: number;
};

/** How often a running campaign's progress is fetched again. */
export const LIVE_REFRESH_MS = 2000;

export function isRunning(c: Pick<Campaign, "status">): boolean {
  return c.status === "queued" || c.status === "expanding" || c.status === "sending";
}

export function useCampaigns(query: Query) {
  return useSWR<Page<Campaign>, Error>(["/api/admin/campaigns", query], swrFetcher, {
    ...noRetryOn4xx,
    keepPreviousData: true,
    refreshInterval: (data) => (data?.rows.some(isRunning) ? LIVE_REFRESH_MS : 0),
  });
}

export function useCampaign(id: string) {
  return useSWR<{ campaign: Campaign }, Error>(`/api/admin/campaigns/${encodeURIComponent(id)}`, swrFetcher, {
    ...noRetryOn4xx,
    refreshInterval: (data) => (data && isRunning(data.campaign) ? LIVE_REFRESH_MS : 0),
  });
}

export function useLedger(id: string, query: Query, live: boolean) {
  return useSWR<Page<LedgerRow>, Error>([`/api/admin/campaigns/${encodeURIComponent(id)}/messages`, query], swrFetcher, {
    ...noRetryOn4xx,
    keepPreviousData: true,
    refreshInterval: live ? LIVE_REFRESH_MS : 0,
  });
}
