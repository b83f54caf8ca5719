import useSWR from "swr";
import { DRIVER_SORTS, type DriverAudienceInput, type DriverRow, type InvitationAudienceInput, type InvitationRow } from "../../../../shared/audience";
import type { App } from "../../../../shared/auth";
import type { ExclusionReason, ReviewSummary } from "../../../../shared/campaigns";
import type { CampaignPurpose } from "../../../../shared/marketing";
import type { Page } from "../../../../shared/paging";
import type { SortDir } from "../../../components/ui/DataTable";
import { api, asQuery, unwrap } from "../../../lib/api-client";
import { fetchAll, noRetryOn4xx } from "../api";

export function useRegions(app: App) {
  return useSWR(app === "flex" ? ["admin/regions", app] : null, () => unwrap(api.admin.regions.$get({ query: { app } })), noRetryOn4xx);
}

/** Referral codes need billingDetails; without it (or on a 403) the select is hidden. */
export function useReferrals(allowed: boolean) {
  return useSWR(allowed ? "admin/referrals" : null, () => fetchAll((query) => unwrap(api.flex.v1.admin.referrals.$get({ query }))), noRetryOn4xx);
}

/** The review's own part of the query: the page, the search and the sort on screen. */
export type ReviewPaging = { page: number; pageSize: number; search?: string; sort?: string; dir?: SortDir };

/** The panels' filters, as the shared audience schemas read them (paging is the review's). */
export type DriverFilters = Omit<DriverAudienceInput, "page" | "pageSize" | "search" | "sort" | "dir">;
export type InvitationFilters = Omit<InvitationAudienceInput, "page" | "pageSize" | "search">;

const driverSort = (key: string | undefined) => DRIVER_SORTS.find((sort) => sort === key);

/** A review's list: the server filters, searches, sorts, pages and counts; `key` names it in the cache. */
/**
 * What the rules hold the audience to (docs/messaging-rules.md): sent beside the filters, the
 * server marks each row and sums up the exclusions and the deferral.
 */
export type ReviewRules = {
  channel: "sms" | "whatsapp";
  purpose?: CampaignPurpose;
  templateName?: string;
  templateLanguage?: string;
  scheduledAt?: number;
};

type Marked<Row> = Row & { exclusion?: ExclusionReason | null; deferredUntil?: number | null };

export const driverAudienceList = {
  key: "admin/audience",
  load: async (filters: DriverFilters, { sort, ...paging }: ReviewPaging, rules?: ReviewRules): Promise<Page<Marked<DriverRow>>> =>
    unwrap(api.admin.audience.$get({ query: asQuery({ ...filters, ...paging, sort: driverSort(sort), ...rules }) })),
  summary: (filters: DriverFilters, rules: ReviewRules): Promise<ReviewSummary> =>
    unwrap(api.admin.audience.review.$get({ query: asQuery({ ...filters, ...rules }) })),
};

export const invitationAudienceList = {
  key: "admin/invitation-audience",
  // Invitations have one order (newest first): the sort is not sent.
  load: async (filters: InvitationFilters, { page, pageSize, search }: ReviewPaging, rules?: ReviewRules): Promise<Page<Marked<InvitationRow>>> =>
    unwrap(api.admin["invitation-audience"].$get({ query: asQuery({ ...filters, page, pageSize, search, ...rules }) })),
  summary: (filters: InvitationFilters, rules: ReviewRules): Promise<ReviewSummary> =>
    unwrap(api.admin["invitation-audience"].review.$get({ query: asQuery({ ...filters, ...rules }) })),
};
