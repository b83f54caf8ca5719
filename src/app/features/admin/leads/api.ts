import type { InferRequestType } from "hono/client";
import useSWR, { type SWRConfiguration } from "swr";
import { api, asQuery, unwrap } from "../../../lib/api-client";
import { noRetryOn4xx } from "../api";

const options: SWRConfiguration = { ...noRetryOn4xx, keepPreviousData: true };
export type LeadsQuery = InferRequestType<typeof api.admin.leads.$get>["query"];
export type LeadChange = InferRequestType<(typeof api.admin.leads)[":id"]["$patch"]>["json"];

export function useLeads(query: LeadsQuery) {
  return useSWR(["admin/leads", query], () => unwrap(api.admin.leads.$get({ query })), options);
}

export function updateLead(id: number, json: LeadChange) {
  return unwrap(api.admin.leads[":id"].$patch({ param: { id: String(id) }, json }));
}

/** The administrators a lead can be given to. */
export function useAdmins() {
  return useSWR(
    "admin/admins",
    () => unwrap(api.admin.users.$get({ query: asQuery({ role: "admins", sort: "name", dir: "asc", pageSize: 100 }) })),
    noRetryOn4xx,
  );
}
