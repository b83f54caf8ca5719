import useSWR, { type SWRResponse } from "swr";
import type { CampaignView, LedgerRow, MessageStatus } from "../../../../shared/campaigns";
import type { Page } from "../../../../shared/paging";
import { api, asQuery, unwrap } from "../../../lib/api-client";
import { noRetryOn4xx } from "../api";

/** How often a running campaign's progress is fetched again. */
export const LIVE_REFRESH_MS = 2000;

/** Running: the page refreshes itself. A scheduled campaign too, so its start shows without a reload. */
export function isRunning(c: Pick<CampaignView, "status">): boolean {
  return c.status === "scheduled" || c.status === "queued" || c.status === "expanding" || c.status === "sending";
}

type Paging = { page: number; pageSize: number };

// The answers are typed by the routes; naming them here checks they still match the shared shapes.
export function useCampaigns(paging: Paging): SWRResponse<Page<CampaignView>, Error> {
  return useSWR<Page<CampaignView>, Error>(["admin/campaigns", paging], () => unwrap(api.admin.campaigns.$get({ query: asQuery(paging) })), {
    ...noRetryOn4xx,
    keepPreviousData: true,
    refreshInterval: (data) => (data?.rows.some(isRunning) ? LIVE_REFRESH_MS : 0),
  });
}

export function useCampaign(id: string): SWRResponse<{ campaign: CampaignView }, Error> {
  return useSWR<{ campaign: CampaignView }, Error>(["admin/campaign", id], () => unwrap(api.admin.campaigns[":id"].$get({ param: { id } })), {
    ...noRetryOn4xx,
    refreshInterval: (data) => (data && isRunning(data.campaign) ? LIVE_REFRESH_MS : 0),
  });
}

export function useLedger(id: string, query: Paging & { status?: MessageStatus }, live: boolean): SWRResponse<Page<LedgerRow>, Error> {
  return useSWR<Page<LedgerRow>, Error>(
    ["admin/campaign/messages", id, query],
    () => unwrap(api.admin.campaigns[":id"].messages.$get({ param: { id }, query: asQuery(query) })),
    {
      ...noRetryOn4xx,
      keepPreviousData: true,
      refreshInterval: live ? LIVE_REFRESH_MS : 0,
    },
  );
}
