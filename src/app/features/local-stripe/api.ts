import useSWR from "swr";
import { api, swrFetcher } from "../../lib/api-client";

/** The embedded payments provider's pages (PAYMENTS_PROVIDER = "local"; docs/payments.md). */

export type LocalSession = {
  id: string;
  status: "open" | "complete" | "expired";
  amountCents: number;
  currency: string;
  productName: string;
  description: string;
  customerEmail: string | null;
  expiresAt: number;
  cancelUrl: string;
  successUrl: string | null;
};

export type LocalLink = { account: string; email: string | null; expiresAt: number; refreshUrl: string };

export function useLocalSession(id: string) {
  return useSWR<{ session: LocalSession }, Error>(`/api/local-stripe/checkout/${encodeURIComponent(id)}`, swrFetcher, { revalidateOnFocus: false });
}

export function useLocalLink(id: string) {
  return useSWR<{ link: LocalLink }, Error>(`/api/local-stripe/onboarding/${encodeURIComponent(id)}`, swrFetcher, { revalidateOnFocus: false });
}

export const localStripeApi = {
  pay: (id: string, card: { number: string; expiry: string; cvc: string; name?: string }) =>
    api.post<{ status: string; redirectUrl: string }>(`/api/local-stripe/checkout/${encodeURIComponent(id)}/pay`, card, { auth: false }),
  back: (id: string) => api.post<{ redirectUrl: string }>(`/api/local-stripe/checkout/${encodeURIComponent(id)}/cancel`, undefined, { auth: false }),
  completeOnboarding: (id: string) =>
    api.post<{ redirectUrl: string }>(`/api/local-stripe/onboarding/${encodeURIComponent(id)}/complete`, undefined, { auth: false }),
};
