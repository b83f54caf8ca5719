import useSWR, { type SWRConfiguration } from "swr";
import type { InvitationListRow } from "../../../../shared/admin-lists";
import type { AuditRow, SessionRow, UserDetail, UserListRow, UserMessageRow } from "../../../../shared/admin-users";
import type { Page } from "../../../../shared/paging";
import { ApiClientError, api, apiDownload, type Query, swrFetcher } from "../../../lib/api-client";

const options: SWRConfiguration = {
  keepPreviousData: true,
  // A 4xx (no such user, no permission) will not get better by asking again.
  shouldRetryOnError: (err: Error) => !(err instanceof ApiClientError && err.status >= 400 && err.status < 500),
};

export function useUsers(query: Query) {
  return useSWR<Page<UserListRow>, Error>(["/api/admin/users", query], swrFetcher, options);
}

export function useRegions(app: string) {
  return useSWR<{ Items: string[] }, Error>(["/api/admin/regions", { app }], swrFetcher, options);
}

export function exportUsers(query: Query) {
  return apiDownload("/api/admin/users/export.csv", query);
}

const userPath = (id: string | number) => `/api/admin/users/${encodeURIComponent(String(id))}`;

export function useUser(id: string) {
  return useSWR<{ user: UserDetail }, Error>(userPath(id), swrFetcher, { ...options, keepPreviousData: false });
}

export function useUserPage<Row>(id: string, part: "sessions" | "messages" | "audit", query: Query) {
  return useSWR<Page<Row>, Error>([`${userPath(id)}/${part}`, query], swrFetcher, options);
}
export type { AuditRow, SessionRow, UserMessageRow };

export function useUserInvitations(id: string, query: Query) {
  return useSWR<Page<InvitationListRow>, Error>(["/api/admin/invitations", { ...query, inviter: id }], swrFetcher, options);
}

export const userApi = {
  update: (id: number, patch: Record<string, unknown>) => api.patch<{ user: UserDetail }>(userPath(id), patch),
  signOut: (id: number, reason: string) => api.post<{ sessions: number }>(`${userPath(id)}/sign-out`, { reason }),
  resetTotp: (id: number, reason: string) => api.post<{ user: UserDetail }>(`${userPath(id)}/reset-totp`, { reason }),
  setRole: (id: number, role: { isAdmin: boolean; roleName?: string; billingDetails?: boolean }) => api.put<{ user: UserDetail }>(`${userPath(id)}/role`, role),
  setOptOuts: (id: number, optOuts: { sms: boolean; whatsapp: boolean }) => api.put<{ user: UserDetail }>(`${userPath(id)}/opt-outs`, optOuts),
};
