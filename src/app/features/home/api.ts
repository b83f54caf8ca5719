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

// One formatter per language: building one is far slower than formatting (on a slow phone the
// landing page's preview spent most of its render building a formatter per price).
const usdFormats = new Map<string, Intl.NumberFormat>();

/** $39.99 */
export function formatUsd(cents: number, language: string): string {
  const locale = language === "es" ? "es-US" : "en-US";
  let format = usdFormats.get(locale);
  if (!format) {
    format = new Intl.NumberFormat(locale, { style: "currency", currency: "USD" });
    usdFormats.set(locale, format);
  }
  return format.format(cents / 100);
}
