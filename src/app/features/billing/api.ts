import useSWR from "swr";
import type { CheckoutInput } from "../../../shared/billing";
import type { Page } from "../../../shared/paging";
import { api, swrFetcher } from "../../lib/api-client";

/** The driver's side of payments, invitations and the reseller program (docs/payments.md). */

export type Plan = { id: number; app: "flex" | "spark"; name: string; days: number; priceCents: number };
export type PaymentStatus = "processing" | "successful" | "failed" | "refunded";
export type PaymentView = {
  id: number;
  userId: number;
  payerId: number | null;
  days: number;
  amountCents: number;
  refundedCents: number;
  status: PaymentStatus;
  failureCode: string | null;
  createdAt: number;
  settledAt: number | null;
  expirationAt: number | null;
};
export type PaymentRow = Omit<PaymentView, "expirationAt"> & { payerName: string | null; userName: string };
export type PaymentTotals = { grossCents: number; refundedCents: number; netCents: number; daysSold: number };

export type InvitationState = "invited" | "registered" | "paid" | "free_week";
export type InvitationRow = { id: number; phoneNumber: string; invitedAt: number; via: "sms" | "link"; state: InvitationState };
export type InvitationSummary = { invited: number; registered: number; paid: number; free_week: number; freeWeeksEarned: number; remainingToday: number };

export type ResellerStatus = "none" | "applied" | "approved" | "rejected" | "revoked";
export type ResellerSummary =
  | { status: "none" }
  | {
      status: Exclude<ResellerStatus, "none">;
      appliedAt: number;
      referralCode: string | null;
      commissionPercent: number;
      stripeExpressId: string | null;
      detailsSubmitted: boolean;
      payoutsEnabled: boolean;
      clients: number;
      totals: { owedCents: number; paidCents: number; reversedCents: number };
    };
export type ClientRow = {
  id: number;
  name: string;
  phoneNumber: string;
  expirationAt: number | null;
  goodStanding: boolean;
  status: "start" | "stop";
  blocksWonThisWeek: number;
};
export type CommissionRow = {
  id: number;
  paymentId: number;
  clientName: string;
  paymentCents: number;
  amountCents: number;
  status: "pending" | "paid" | "reversed";
  transferredCents: number;
  reversedCents: number;
  createdAt: number;
};

/** How often a payment that is still being confirmed is read again. */
export const PAYMENT_POLL_MS = 2000;

export function usePlans(app: "flex" | "spark" | undefined) {
  return useSWR<{ Items: Plan[] }, Error>(app ? ["/api/plans", { app }] : null, swrFetcher);
}

export function usePayment(id: number | null) {
  return useSWR<{ payment: PaymentView }, Error>(id ? `/api/payments/${id}` : null, swrFetcher, {
    refreshInterval: (data) => (data?.payment.status === "processing" ? PAYMENT_POLL_MS : 0),
  });
}

export function usePayments(page: number, pageSize: number) {
  return useSWR<Page<PaymentRow> & { totals: PaymentTotals }, Error>(["/api/payments", { page, pageSize }], swrFetcher, { keepPreviousData: true });
}

export function useInvitations(page: number, pageSize: number) {
  return useSWR<Page<InvitationRow> & { summary: InvitationSummary; inviteLink: string }, Error>(["/api/invitations", { page, pageSize }], swrFetcher, {
    keepPreviousData: true,
  });
}

export function useReseller() {
  return useSWR<{ reseller: ResellerSummary }, Error>("/api/reseller", swrFetcher);
}

export function useClients(enabled: boolean, query: { page: number; pageSize: number; q: string; weekStart: number }) {
  return useSWR<Page<ClientRow>, Error>(enabled ? ["/api/reseller/clients", query] : null, swrFetcher, { keepPreviousData: true });
}

export function useCommissions(enabled: boolean, page: number, pageSize: number) {
  return useSWR<Page<CommissionRow>, Error>(enabled ? ["/api/reseller/commissions", { page, pageSize }] : null, swrFetcher, { keepPreviousData: true });
}

export const billingApi = {
  checkout: (body: CheckoutInput) => api.post<{ paymentId: number; url: string }>("/api/payments/checkout", body),
  cancel: (paymentId: number) => api.post<{ payment: PaymentView }>(`/api/payments/${paymentId}/cancel`),
  invite: (phoneNumber: string) => api.post<{ invitation: InvitationRow }>("/api/invitations", { phoneNumber }),
  applyAsReseller: (message: string) => api.post<{ reseller: ResellerSummary }>("/api/reseller/apply", { acceptTerms: true, message: message || undefined }),
  startOnboarding: () => api.post<{ url: string; accountId: string }>("/api/reseller/onboarding"),
  refreshOnboarding: () => api.post<{ onboarding: { detailsSubmitted: boolean; payoutsEnabled: boolean } }>("/api/reseller/onboarding/refresh"),
};

/** Monday 00:00 of this week in the browser's zone: "blocks won this week" counts from there. */
export function startOfWeek(now = new Date()): number {
  const d = new Date(now);
  d.setHours(0, 0, 0, 0);
  const sinceMonday = (d.getDay() + 6) % 7;
  d.setDate(d.getDate() - sinceMonday);
  return d.getTime();
}
