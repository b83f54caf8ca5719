import { useCallback, useEffect, useRef, useState } from "react";
import useSWR, { type SWRResponse } from "swr";
import type { DriverFilters } from "../../../shared/driver-filters";
import type { InsightPeriod, InsightsReport, WhatIfResult } from "../../../shared/insights";
import type { WhatIfRequest } from "../../../shared/insights-requests";
import { ApiClientError, api, unwrap } from "../../lib/api-client";
import type { FiltersView } from "./api";

/**
 * The insights page's calls (/flex/insights, and an administrator's view of a driver's), through
 * the one typed client: its token, its early reads, ApiClientError from the error envelope.
 */
const noRetryOn4xx = {
  shouldRetryOnError: (err: Error) => !(err instanceof ApiClientError && err.status >= 400 && err.status < 500),
};

/** Whose insights: the signed-in driver's (undefined), or (administrators) the driver `driverId`'s. */
export type Whose = number | undefined;

export const insightsApi = {
  report: (days: InsightPeriod, driverId: Whose) =>
    driverId === undefined
      ? unwrap(api.driver.insights.$get({ query: { days: String(days) } }))
      : unwrap(api.admin.users[":id"].dashboard.insights.$get({ param: { id: String(driverId) }, query: { days: String(days) } })),
  whatIf: (request: WhatIfRequest, driverId: Whose) =>
    driverId === undefined
      ? unwrap(api.driver.insights["what-if"].$post({ json: request }))
      : unwrap(api.admin.users[":id"].dashboard.insights["what-if"].$post({ param: { id: String(driverId) }, json: request })),
};

/** The report over `days`; a switch of period keeps the last one on screen until the new one comes. */
export function useInsights(days: InsightPeriod, driverId: Whose): SWRResponse<InsightsReport, Error> {
  return useSWR(["driver/insights", days, driverId ?? null], () => insightsApi.report(days, driverId), {
    ...noRetryOn4xx,
    keepPreviousData: true,
    revalidateOnFocus: false,
  });
}

/**
 * The filters the what-if starts from: the signed-in driver's saved ones (the key the settings page
 * reads them under), or, for an administrator, the driver's as their dashboard's offers page carries
 * them (the filters that judged the offers; there is no admin route of the filters alone).
 */
export function useSavedFilters(driverId: Whose): SWRResponse<FiltersView, Error> {
  return useSWR(
    driverId === undefined ? ["driver/filters"] : ["driver/filters", driverId],
    async () => {
      if (driverId === undefined) return unwrap(api.driver.filters.$get());
      const page = await unwrap(api.admin.users[":id"].dashboard.offers.$get({ param: { id: String(driverId) }, query: { page: "1", pageSize: "20" } }));
      return { filters: page.filters as DriverFilters | null } as FiltersView;
    },
    { ...noRetryOn4xx, revalidateOnFocus: false },
  );
}

/** How long the what-if waits after the last change before it asks. */
export const WHAT_IF_DEBOUNCE_MS = 300;

export type WhatIfState = {
  /** The last answer, kept on screen while the next one is asked for. */
  result: WhatIfResult | null;
  /** A request is waiting or under way. */
  busy: boolean;
  error: Error | null;
  retry: () => void;
};

/**
 * The what-if of `filters` over `days`, asked again WHAT_IF_DEBOUNCE_MS after the last change
 * (null filters: the form has an error; nothing is asked). The answer to a request that a newer one
 * replaced is dropped, so a slow answer never overwrites a newer one.
 */
export function useWhatIf(filters: DriverFilters | null, days: InsightPeriod, driverId: Whose): WhatIfState {
  const [result, setResult] = useState<WhatIfResult | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const [attempt, setAttempt] = useState(0);
  const latest = useRef(0);
  const retried = useRef(0);
  // The filters as a value: a new object with the same contents asks nothing.
  const key = filters ? JSON.stringify(filters) : null;

  useEffect(() => {
    if (key === null) {
      setBusy(false);
      return;
    }
    const id = ++latest.current;
    // A change waits for the next; "try again" asks at once.
    const wait = attempt === retried.current ? WHAT_IF_DEBOUNCE_MS : 0;
    retried.current = attempt;
    setBusy(true);
    const timer = setTimeout(() => {
      insightsApi
        .whatIf({ days, filters: JSON.parse(key) as DriverFilters }, driverId)
        .then((answer) => {
          if (id !== latest.current) return;
          setResult(answer);
          setError(null);
          setBusy(false);
        })
        .catch((err: unknown) => {
          if (id !== latest.current) return;
          setError(err instanceof Error ? err : new Error(String(err)));
          setBusy(false);
        });
    }, wait);
    return () => clearTimeout(timer);
  }, [key, days, driverId, attempt]);

  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { result, busy, error, retry };
}
