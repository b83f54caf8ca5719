import useSWR from "swr";
import { publicApi, unwrap } from "../../lib/api-client";

/**
 * The active plans (GET /api/plans, public), for the landing page. When they cannot be read the
 * page says how plans work without prices rather than showing made-up ones.
 */
export function usePlans(app: "flex" | "spark" = "flex") {
  return useSWR(["plans", app], async () => (await unwrap(publicApi.plans.$get({ query: { app } }))).Items, {
    revalidateOnFocus: false,
    shouldRetryOnError: false,
  });
}

/**
 * $39.99, as Intl writes US dollars for en-US and es-US alike (the test compares them), without
 * building an Intl.NumberFormat: the first one is a long task on a slow phone, on the landing
 * page's load path (its preview and plans).
 */
export function formatUsd(cents: number, _language: string): string {
  const whole = Math.round(Math.abs(cents));
  const dollars = String(Math.floor(whole / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${cents < 0 && whole > 0 ? "-" : ""}$${dollars}.${String(whole % 100).padStart(2, "0")}`;
}
