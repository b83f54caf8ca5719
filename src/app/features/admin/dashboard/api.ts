import useSWR from "swr";
import type { DashboardFigures, DashboardSeries } from "../../../../shared/admin-dashboard";
import { ApiClientError, swrFetcher } from "../../../lib/api-client";

export type DashboardQuery = { from: string; to: string; timeZone: string };

const options = {
  keepPreviousData: true,
  // A 4xx will not get better by asking again.
  shouldRetryOnError: (err: Error) => !(err instanceof ApiClientError && err.status >= 400 && err.status < 500),
};

/** The figures for today and the range; null while the range is not valid. */
export function useDashboardFigures(query: DashboardQuery | null) {
  return useSWR<DashboardFigures, Error>(query ? ["/api/admin/dashboard", query] : null, swrFetcher, options);
}

export function useDashboardSeries(query: DashboardQuery | null) {
  return useSWR<DashboardSeries, Error>(query ? ["/api/admin/dashboard/series", query] : null, swrFetcher, options);
}
