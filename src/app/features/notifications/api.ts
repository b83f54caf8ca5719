import useSWR, { type SWRConfiguration, type SWRResponse } from "swr";
import type { ReviewSummary } from "../../../shared/campaigns";
import { allItems, type CampaignMessage, noRetryOn4xx, type Page } from "../../lib/admin-api";
import { type Query, swrFetcher } from "../../lib/api-client";

export function useRegions(app: "flex" | "spark") {
  return useSWR<{ Items: string[] }, Error>(app === "flex" ? ["/api/admin/regions", { app }] : null, swrFetcher, noRetryOn4xx);
}

/** Referral codes need billingDetails; without it (or on a 403) the select is hidden. */
export function useReferrals(allowed: boolean): SWRResponse<{ Items: { referralCode: string }[] }, Error> {
  return useSWR<{ Items: { referralCode: string }[] }, Error>(allowed ? ["/api/flex/v1/admin/referrals", "all"] : null, allItems, noRetryOn4xx);
}

export function usePage<Row>(path: string, query: Query | null, options?: SWRConfiguration) {
  return useSWR<Page<Row>, Error>(query ? [path, query] : null, swrFetcher, { keepPreviousData: true, ...noRetryOn4xx, ...options });
}

export function useReviewSummary(path: string, query: Query | null) {
  return useSWR<ReviewSummary, Error>(query ? [`${path}/review`, query] : null, swrFetcher, { keepPreviousData: true, ...noRetryOn4xx });
}

export type CampaignBody = CampaignMessage & {
  source: "drivers" | "invitations";
  audience: Query;
  excludedPhones: string[];
};
