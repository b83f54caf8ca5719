import useSWR from "swr";
import type { CheckoutInput } from "../../../shared/billing";
import { type Answer, api, asQuery, publicApi, unwrap } from "../../lib/api-client";

/** The driver's side of payments, invitations and the reseller program (docs/payments.md). */

const calls = {
  plans: (app: "flex" | "spark") => publicApi.plans.$get({ query: { app } }),
  payment: (id: number) => api.payments[":id{[0-9]+}"].$get({ param: { id: String(id) } }),
  payments: (page: number, pageSize: number) => api.payments.$get({ query: asQuery({ page, pageSize }) }),
  serviceTime: (page: number, pageSize: number) => api.payments["service-time"].$get({ query: asQuery({ page, pageSize }) }),
  invitations: (page: number, pageSize: number) => api.invitations.$get({ query: asQuery({ page, pageSize }) }),
  reseller: () => api.reseller.$get(),
  clients: (query: { page: number; pageSize: number; q: string; weekStart: number }) => api.reseller.clients.$get({ query: asQuery(query) }),
  commissions: (page: number, pageSize: number) => api.reseller.commissions.$get({ query: asQuery({ page, pageSize }) }),
};

export type Plan = Answer<Awaited<ReturnType<typeof calls.plans>>>["Items"][number];
export type PaymentView = Answer<Awaited<ReturnType<typeof calls.payment>>>["payment"];
export type PaymentStatus = PaymentView["status"];
export type PaymentRow = Answer<Awaited<ReturnType<typeof calls.payments>>>["rows"][number];
export type ServiceTimeRow = Answer<Awaited<ReturnType<typeof calls.serviceTime>>>["rows"][number];
export type InvitationRow = Answer<Awaited<ReturnType<typeof calls.invitations>>>["rows"][number];
export type InvitationState = InvitationRow["state"];
export type ResellerSummary = Answer<Awaited<ReturnType<typeof calls.reseller>>>["reseller"];
/** A reseller the program approved (the summary says so in `status`). */
export type ApprovedReseller = Exclude<ResellerSummary, { status: "none" }> & { status: "approved" };
export type ClientRow = Answer<Awaited<ReturnType<typeof calls.clients>>>["rows"][number];
export type CommissionRow = Answer<Awaited<ReturnType<typeof calls.commissions>>>["rows"][number];

/** How often a payment that is still being confirmed is read again. */
export const PAYMENT_POLL_MS = 2000;

export function usePlans(app: "flex" | "spark" | undefined) {
  return useSWR(app ? ["billing/plans", app] : null, ([, a]) => unwrap(calls.plans(a)));
}

export function usePayment(id: number | null) {
  return useSWR(id ? ["billing/payment", id] : null, ([, paymentId]) => unwrap(calls.payment(paymentId)), {
    refreshInterval: (data) => (data?.payment.status === "processing" ? PAYMENT_POLL_MS : 0),
  });
}

export function usePayments(page: number, pageSize: number) {
  return useSWR(["billing/payments", page, pageSize], ([, p, size]) => unwrap(calls.payments(p, size)), { keepPreviousData: true });
}

export function useServiceTime(page: number, pageSize: number) {
  return useSWR(["billing/service-time", page, pageSize], ([, p, size]) => unwrap(calls.serviceTime(p, size)), { keepPreviousData: true });
}

/** Every invitations key starts with this, so a new invitation can refresh them all. */
export const INVITATIONS_KEY = "billing/invitations";

export function useInvitations(page: number, pageSize: number) {
  return useSWR([INVITATIONS_KEY, page, pageSize], ([, p, size]) => unwrap(calls.invitations(p, size)), { keepPreviousData: true });
}

export function useReseller() {
  return useSWR("billing/reseller", () => unwrap(calls.reseller()));
}

export function useClients(query: { page: number; pageSize: number; q: string; weekStart: number }) {
  return useSWR(["billing/clients", query], ([, q]) => unwrap(calls.clients(q)), { keepPreviousData: true });
}

export function useCommissions(page: number, pageSize: number) {
  return useSWR(["billing/commissions", page, pageSize], ([, p, size]) => unwrap(calls.commissions(p, size)), { keepPreviousData: true });
}

export const billingApi = {
  checkout: (body: CheckoutInput) => unwrap(api.payments.checkout.$post({ json: body })),
  cancel: (paymentId: number) => unwrap(api.payments[":id{[0-9]+}"].cancel.$post({ param: { id: String(paymentId) } })),
  invite: (phoneNumber: string) => unwrap(api.invitations.$post({ json: { phoneNumber } })),
  applyAsReseller: (message: string) => unwrap(api.reseller.apply.$post({ json: { acceptTerms: true, message: message || undefined } })),
  startOnboarding: () => unwrap(api.reseller.onboarding.$post()),
  refreshOnboarding: () => unwrap(api.reseller.onboarding.refresh.$post()),
};

/** Monday 00:00 of this week in the browser's zone: "blocks won this week" counts from there. */
export function startOfWeek(now = new Date()): number {
  const d = new Date(now);
  d.setHours(0, 0, 0, 0);
  const sinceMonday = (d.getDay() + 6) % 7;
  d.setDate(d.getDate() - sinceMonday);
  return d.getTime();
}
