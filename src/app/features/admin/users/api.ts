import type { InferRequestType, InferResponseType } from "hono/client";
import useSWR, { type SWRConfiguration } from "swr";
import { api, asQuery, unwrap, unwrapText } from "../../../lib/api-client";
import { noRetryOn4xx } from "../api";

const options: SWRConfiguration = { ...noRetryOn4xx, keepPreviousData: true };

export type UsersQuery = InferRequestType<typeof api.admin.users.$get>["query"];
type Paging = { page: number; pageSize: number };

export function useUsers(query: UsersQuery) {
  return useSWR(["admin/users", query], () => unwrap(api.admin.users.$get({ query })), options);
}

export function useRegions(app: "flex" | "spark") {
  return useSWR(["admin/regions", app], () => unwrap(api.admin.regions.$get({ query: { app } })), options);
}

/** The filtered set as CSV text (the server streams it; the browser saves it). */
export function exportUsers(query: InferRequestType<(typeof api.admin.users)["export.csv"]["$get"]>["query"]) {
  return unwrapText(api.admin.users["export.csv"].$get({ query }, { headers: { Accept: "text/csv" } }));
}

const user = api.admin.users[":id"];

/** One user as their page shows them. */
export type UserView = InferResponseType<(typeof user)["$get"], 200>["user"];

export function useUser(id: string) {
  return useSWR(["admin/user", id], () => unwrap(user.$get({ param: { id } })), noRetryOn4xx);
}

export function useUserSessions(id: string, paging: Paging) {
  return useSWR(["admin/user/sessions", id, paging], () => unwrap(user.sessions.$get({ param: { id }, query: asQuery(paging) })), options);
}

export function useUserMessages(id: string, paging: Paging) {
  return useSWR(["admin/user/messages", id, paging], () => unwrap(user.messages.$get({ param: { id }, query: asQuery(paging) })), options);
}

export function useUserAudit(id: string, paging: Paging) {
  return useSWR(["admin/user/audit", id, paging], () => unwrap(user.audit.$get({ param: { id }, query: asQuery(paging) })), options);
}

export function useUserInvitations(id: string, paging: Paging) {
  return useSWR(["admin/user/invitations", id, paging], () => unwrap(api.admin.invitations.$get({ query: asQuery({ ...paging, inviter: id }) })), options);
}

const param = (id: number) => ({ param: { id: String(id) } });

export const userApi = {
  update: (id: number, json: InferRequestType<typeof user.$patch>["json"]) => unwrap(user.$patch({ ...param(id), json })),
  signOut: (id: number, reason: string) => unwrap(user["sign-out"].$post({ ...param(id), json: { reason } })),
  resetTotp: (id: number, reason: string) => unwrap(user["reset-totp"].$post({ ...param(id), json: { reason } })),
  setRole: (id: number, json: InferRequestType<typeof user.role.$put>["json"]) => unwrap(user.role.$put({ ...param(id), json })),
  setOptOuts: (id: number, json: { sms: boolean; whatsapp: boolean }) => unwrap(user["opt-outs"].$put({ ...param(id), json })),
  /** Erases the account for a written request (its reference is audited). */
  erase: (id: number, json: { reference: string; confirmation: string }) => unwrap(user.erase.$post({ ...param(id), json })),
};

/**
 * Opens one of a driver's screens, "acting for" them: the server writes the opening to the audit
 * log (driver.dashboard_viewed) and refuses if it cannot; the screen reads nothing of theirs before.
 */
export function openActingFor(id: number, view: "dashboard" | "insights") {
  return unwrap(user["acting-for"].$post({ ...param(id), json: { view } }));
}

/** The driver's engine as their dashboard shows it (read through the acting-for route; drivers only). */
export type UserEngine = InferResponseType<(typeof user.dashboard.engine)["$get"], 200>["engine"];

export function useUserEngine(id: string, allowed: boolean) {
  return useSWR(allowed ? ["admin/user/engine", id] : null, () => unwrap(user.dashboard.engine.$get({ param: { id } })), noRetryOn4xx);
}

/** Clears a signature stop or a signature accept hold: the engine tries once more (audited; 409 `no_hold` when there is none). */
export function clearEngineHold(id: number) {
  return unwrap(user.engine["clear-hold"].$post(param(id)));
}

/** Switches a driver's system for support, "acting for" them; the reason is audited. */
export function setSystemFor(id: number, on: boolean, reason: string) {
  return unwrap(user.dashboard.engine.$post({ ...param(id), json: { on, reason } }));
}

const billingUser = api.admin.billing.users[":id"];

/** The driver's service-time ledger (billingDetails only). */
export function useServiceTime(id: string, paging: Paging, allowed: boolean) {
  return useSWR(
    allowed ? ["admin/user/service-time", id, paging] : null,
    () => unwrap(billingUser["service-time"].$get({ param: { id }, query: asQuery(paging) })),
    options,
  );
}

export function adjustServiceTime(id: number, json: { days: number; reason: string }) {
  return unwrap(billingUser["service-time"].$post({ param: { id: String(id) }, json }));
}

const reseller = api.admin.billing.resellers[":id"];

/** The reseller programme's decisions (billing admins; docs/payments.md). */
export const resellerApi = {
  approve: (id: number) => unwrap(reseller.approve.$post({ param: { id: String(id) }, json: {} })),
  reject: (id: number) => unwrap(reseller.reject.$post({ param: { id: String(id) } })),
  revoke: (id: number) => unwrap(reseller.revoke.$post({ param: { id: String(id) } })),
};
