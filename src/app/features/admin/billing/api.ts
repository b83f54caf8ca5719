import type { InferRequestType } from "hono/client";
import useSWR, { type SWRConfiguration } from "swr";
import { api, asQuery, unwrap, unwrapText } from "../../../lib/api-client";
import { noRetryOn4xx } from "../api";

const options: SWRConfiguration = { ...noRetryOn4xx, keepPreviousData: true };
const billing = api.admin.billing;

export type PaymentsQuery = InferRequestType<typeof billing.payments.$get>["query"];
export type PlanChange = InferRequestType<(typeof billing.plans)[":id"]["$patch"]>["json"];
export type NewPlan = InferRequestType<typeof billing.plans.$post>["json"];
export type Approval = InferRequestType<(typeof billing.resellers)[":id"]["approve"]["$post"]>["json"];

export function usePayments(query: PaymentsQuery) {
  return useSWR(["admin/billing/payments", query], () => unwrap(billing.payments.$get({ query })), options);
}

export function exportPayments(query: InferRequestType<(typeof billing.payments)["export.csv"]["$get"]>["query"]) {
  return unwrapText(billing.payments["export.csv"].$get({ query }, { headers: { Accept: "text/csv" } }));
}

export function refund(id: number, amountCents?: number) {
  return unwrap(billing.payments[":id"].refund.$post({ param: { id: String(id) }, json: amountCents === undefined ? {} : { amountCents } }));
}

export function usePlans() {
  return useSWR("admin/billing/plans", () => unwrap(billing.plans.$get({ query: {} })), noRetryOn4xx);
}
export const updatePlan = (id: number, json: PlanChange) => unwrap(billing.plans[":id"].$patch({ param: { id: String(id) }, json }));
export const createPlan = (json: NewPlan) => unwrap(billing.plans.$post({ json }));

export type ResellerStatus = "applied" | "approved" | "rejected" | "revoked";
export type CommissionStatus = "pending" | "paid" | "reversed";

export function useResellers(paging: { page: number; pageSize: number }, status: ResellerStatus | "") {
  return useSWR(
    ["admin/billing/resellers", paging, status],
    () => unwrap(billing.resellers.$get({ query: asQuery({ ...paging, status: status || undefined }) })),
    options,
  );
}
export const approveReseller = (id: number, json: Approval) => unwrap(billing.resellers[":id"].approve.$post({ param: { id: String(id) }, json }));
export const rejectReseller = (id: number) => unwrap(billing.resellers[":id"].reject.$post({ param: { id: String(id) } }));
export const revokeReseller = (id: number) => unwrap(billing.resellers[":id"].revoke.$post({ param: { id: String(id) } }));

export function useCommissions(paging: { page: number; pageSize: number }, status: CommissionStatus | "") {
  return useSWR(
    ["admin/billing/commissions", paging, status],
    () => unwrap(billing.commissions.$get({ query: asQuery({ ...paging, status: status || undefined }) })),
    options,
  );
}

/** Revenue per day for the chart: the dashboard's series. */
export function useRevenue(query: { from: string; to: string; timeZone: string } | null) {
  return useSWR(query ? ["admin/dashboard/series", query] : null, () => unwrap(api.admin.dashboard.series.$get({ query: asQuery(query!) })), options);
}
