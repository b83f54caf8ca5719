import type { InferRequestType } from "hono/client";
import useSWR, { type SWRConfiguration } from "swr";
import { api, asQuery, unwrap } from "../../../lib/api-client";
import { noRetryOn4xx } from "../api";

const options: SWRConfiguration = { ...noRetryOn4xx, keepPreviousData: true };
export type AuditQuery = InferRequestType<typeof api.admin.audit.$get>["query"];

export function useAudit(query: AuditQuery) {
  return useSWR(["admin/audit", query], () => unwrap(api.admin.audit.$get({ query })), options);
}

export function useAuditActions() {
  return useSWR("admin/audit/actions", () => unwrap(api.admin.audit.actions.$get()), noRetryOn4xx);
}

/** The administrators, for the actor filter (a console has a handful; the first 100 are plenty). */
export function useAdmins() {
  return useSWR(
    "admin/admins",
    () => unwrap(api.admin.users.$get({ query: asQuery({ role: "admins", sort: "name", dir: "asc", pageSize: 100 }) })),
    noRetryOn4xx,
  );
}
