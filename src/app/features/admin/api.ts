import type { InferRequestType } from "hono/client";
import useSWR, { type SWRConfiguration } from "swr";
import { ApiClientError, api, asQuery, unwrap } from "../../lib/api-client";

/** API helpers the admin screens share (notifications, tools, campaigns). */

/** A 4xx will not get better by asking again (a 403 hides the referral list, for one). */
export const noRetryOn4xx: SWRConfiguration = {
  shouldRetryOnError: (err: Error) => !(err instanceof ApiClientError && err.status >= 400 && err.status < 500),
};

export function useSettings() {
  return useSWR("admin/settings", () => unwrap(api.admin.settings.$get()), noRetryOn4xx);
}

type ItemsPage<T> = { Items: T[]; total?: number };

/**
 * A short list the server pages (referral codes, templates): all of it, 100 rows a request, at
 * most 20 requests. These feed a select, so a first page alone would silently hide options.
 */
export async function fetchAll<T>(fetchPage: (query: { page: string; pageSize: string }) => Promise<ItemsPage<T>>): Promise<{ Items: T[] }> {
  const items: T[] = [];
  for (let page = 1; page <= 20; page++) {
    const res = await fetchPage(asQuery({ page, pageSize: 100 }));
    items.push(...res.Items);
    if (res.total === undefined || res.Items.length === 0 || items.length >= res.total) break;
  }
  return { Items: items };
}

/** WhatsApp templates need billingDetails; without it (or on a 403) none are asked for. */
export function useTemplates(allowed: boolean) {
  return useSWR(allowed ? "admin/templates" : null, () => fetchAll((query) => unwrap(api.flex.v1.admin.sendWhatsapp.$get({ query }))), noRetryOn4xx);
}

/** A new campaign, whatever its audience. */
export type CampaignRequest = InferRequestType<typeof api.admin.campaigns.$post>["json"];
export function createCampaign(body: CampaignRequest) {
  return unwrap(api.admin.campaigns.$post({ json: body }));
}
export type CreatedCampaign = Awaited<ReturnType<typeof createCampaign>>;

/** The envelope's message when the server sent one; null for network errors and bare statuses. */
export function serverMessage(err: unknown): string | null {
  if (!(err instanceof ApiClientError)) return null;
  if (err.code === "network_error" || err.code === "http_error") return null;
  return err.message || null;
}

/** An idempotency key per review: a second click (or a replayed request) sends once. */
export function newIdempotencyKey(): string {
  if (typeof crypto !== "undefined" && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
