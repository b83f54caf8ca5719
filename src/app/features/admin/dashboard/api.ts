import useSWR, { type SWRConfiguration } from "swr";
import { api, asQuery, unwrap } from "../../../lib/api-client";
import { noRetryOn4xx } from "../api";

export type DashboardQuery = { from: string; to: string; timeZone: string };

const options: SWRConfiguration = { ...noRetryOn4xx, keepPreviousData: true };

/** The figures for today and the range; nothing is asked while the range is not valid. */
export function useDashboardFigures(query: DashboardQuery | null) {
  return useSWR(query ? ["admin/dashboard", query] : null, () => unwrap(api.admin.dashboard.$get({ query: asQuery(query!) })), options);
}

export function useDashboardSeries(query: DashboardQuery | null) {
  return useSWR(query ? ["admin/dashboard/series", query] : null, () => unwrap(api.admin.dashboard.series.$get({ query: asQuery(query!) })), options);
}
