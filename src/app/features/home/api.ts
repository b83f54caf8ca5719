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

/** $39.99 */
export function formatUsd(cents: number, language: string): string {
  return new Intl.NumberFormat(language === "es" ? "es-US" : "en-US", { style: "currency", currency: "USD" }).format(cents / 100);
}
