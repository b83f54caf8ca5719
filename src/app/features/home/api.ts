import useSWR from "swr";

/** A plan as GET /api/plans lists it (the payments feature's public list). */
export type PublicPlan = { id: number; app: "flex" | "spark"; name: string; days: number; priceCents: number };

/**
 * The active plans, for the landing page. GET /api/plans comes with the payments feature; until
 * its route is part of the typed client's AppType it is read here by URL. Until it answers (or
 * when it fails), the page says how plans work without prices rather than showing made-up ones.
 */
export function usePlans(app: "flex" | "spark" = "flex") {
  return useSWR(
    ["plans", app],
    async () => {
      const res = await fetch(`/api/plans?app=${app}`, { headers: { Accept: "application/json" } });
      if (!res.ok) throw new Error(`plans answered ${res.status}`);
      return ((await res.json()) as { Items: PublicPlan[] }).Items;
    },
    { revalidateOnFocus: false, shouldRetryOnError: false },
  );
}

/** $39.99 */
export function formatUsd(cents: number, language: string): string {
  return new Intl.NumberFormat(language === "es" ? "es-US" : "en-US", { style: "currency", currency: "USD" }).format(cents / 100);
}
