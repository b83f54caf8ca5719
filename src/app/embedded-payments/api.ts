import useSWR from "swr";
import { publicApi, unwrap } from "../lib/api-client";

/** The embedded payments provider's pages (PAYMENTS_PROVIDER = "local"; docs/payments.md). Open like Stripe's: no token. */

const checkout = publicApi["local-stripe"].checkout[":id{cs_local_[0-9a-f]{24}}"];
const onboarding = publicApi["local-stripe"].onboarding[":id{link_local_[0-9a-f]{24}}"];

const readSession = (id: string) => checkout.$get({ param: { id } });

export function useLocalSession(id: string) {
  return useSWR(["local-stripe/session", id], ([, sessionId]) => unwrap(readSession(sessionId)), { revalidateOnFocus: false });
}

export function useLocalLink(id: string) {
  return useSWR(["local-stripe/link", id], ([, linkId]) => unwrap(onboarding.$get({ param: { id: linkId } })), { revalidateOnFocus: false });
}

export const localStripeApi = {
  pay: (id: string, card: { number: string; expiry: string; cvc: string; name?: string }) => unwrap(checkout.pay.$post({ param: { id }, json: card })),
  back: (id: string) => unwrap(checkout.cancel.$post({ param: { id } })),
  completeOnboarding: (id: string) => unwrap(onboarding.complete.$post({ param: { id } })),
};
