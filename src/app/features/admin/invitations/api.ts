import type { InferRequestType } from "hono/client";
import useSWR, { type SWRConfiguration } from "swr";
import { api, unwrap } from "../../../lib/api-client";
import { noRetryOn4xx } from "../api";

const options: SWRConfiguration = { ...noRetryOn4xx, keepPreviousData: true };
export type InvitationsQuery = InferRequestType<typeof api.admin.invitations.$get>["query"];

export function useInvitations(query: InvitationsQuery) {
  return useSWR(["admin/invitations", query], () => unwrap(api.admin.invitations.$get({ query })), options);
}
