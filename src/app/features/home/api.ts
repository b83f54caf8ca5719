import useSWR from "swr";
import { api } from "../../lib/api-client";

/** A plan as GET /api/plans lists it (the payments feature's public list). */
export type PublicPlan = { id: number; app: "flex" | "spark"; name: string; days: number; priceCents: number };

/**
 * The active plans, for the landing page. Until the plans API answers (or when it fails), the
 * page says how plans work without prices rather than showing made-up ones.
 */
export function usePlans(app: "flex" | "spark" = "flex") {
  return useSWR(["plans", app], () => api.get<{ Items: PublicPlan[] }>("/api/plans", { query: { app }, auth: false }).then((answer) => answer.Items), {
    revalidateOnFocus: false,
    shouldRetryOnError: false,
  });
}

/** $39.99 */
export function formatUsd(cents: number, language: string): string {
  return new Intl.NumberFormat(language === "es" ? "es-US" : "en-US", { style: "currency", currency: "USD" }).format(cents / 100);
}
