import useSWR from "swr";
import { DRIVER_SORTS, type DriverAudienceInput, type InvitationAudienceInput } from "../../../../shared/audience";
import type { App } from "../../../../shared/auth";
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
export const driverAudienceList = {
  key: "admin/audience",
  load: (filters: DriverFilters, { sort, ...paging }: ReviewPaging) =>
    unwrap(api.admin.audience.$get({ query: asQuery({ ...filters, ...paging, sort: driverSort(sort) }) })),
};

export const invitationAudienceList = {
  key: "admin/invitation-audience",
  // Invitations have one order (newest first): the sort is not sent.
  load: (filters: InvitationFilters, { page, pageSize, search }: ReviewPaging) =>
    unwrap(api.admin["invitation-audience"].$get({ query: asQuery({ ...filters, page, pageSize, search }) })),
};
