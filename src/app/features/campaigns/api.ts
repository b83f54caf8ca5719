import useSWR from "swr";
import type { CampaignView as Campaign, LedgerRow } from "../../../shared/campaigns";
import { noRetryOn4xx, type Page } from "../../lib/admin-api";
import { type Query, swrFetcher } from "../../lib/api-client";

export { type CampaignStatus, MESSAGE_STATUSES, type MessageStatus } from "../../../shared/campaigns";
export type { Campaign, LedgerRow };

/** How often a running campaign's progress is fetched again. */
export const LIVE_REFRESH_MS = 2000;

/** Running: the page refreshes itself. A scheduled campaign is refreshed too, so its start shows without a reload. */
export function isRunning(c: Pick<Campaign, "status">): boolean {
  return c.status === "scheduled" || c.status === "queued" || c.status === "expanding" || c.status === "sending";
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
