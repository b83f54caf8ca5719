import useSWR, { type SWRConfiguration, type SWRResponse } from "swr";
import { api, ApiClientError, swrFetcher } from "../../lib/api-client";
import type { WhatsAppTemplate } from "../../components/ui/TemplatePicker";

const noRetryOn4xx: SWRConfiguration = {
  shouldRetryOnError: (err: Error) => !(err instanceof ApiClientError && err.status >= 400 && err.status < 500),
};

export function useOwnerName() {
  return useSWR<{ ownerName: string }, Error>("/api/admin/settings", swrFetcher, noRetryOn4xx);
}

/**
 * A short list the server pages (referral codes, templates): all of it, 100 rows a request, at
 * most 20 requests. These feed a select, so a first page alone would silently hide options.
 */
async function fetchAllItems<T>(path: string): Promise<{ Items: T[] }> {
  const items: T[] = [];
  for (let page = 1; page <= 20; page++) {
    const res = await api.get<{ Items: T[]; total?: number }>(path, { query: { page, pageSize: 100 } });
    items.push(...res.Items);
    if (res.total === undefined || res.Items.length === 0 || items.length >= res.total) break;
  }
  return { Items: items };
}
const allItems = <T,>([path]: [string, "all"]) => fetchAllItems<T>(path);

/** WhatsApp templates need billingDetails. */
export function useTemplates(allowed: boolean): SWRResponse<{ Items: WhatsAppTemplate[] }, Error> {
  return useSWR<{ Items: WhatsAppTemplate[] }, Error>(allowed ? ["/api/flex/v1/admin/sendWhatsapp", "all"] : null, allItems, noRetryOn4xx);
}

export type ListCampaignBody = {
  idempotencyKey: string;
  source: "list";
  channel: "sms" | "whatsapp";
  message?: string;
  template?: { name: string; language: string };
  phones: string[];
  liftLimit?: boolean;
};

export function createListCampaign(body: ListCampaignBody) {
  return api.post<{ campaign: { id: number; total: number }; message?: string }>("/api/admin/campaigns", body);
}

export function serverMessage(err: unknown): string | null {
  if (!(err instanceof ApiClientError)) return null;
  if (err.code === "network_error" || err.code === "http_error") return null;
  return err.message || null;
}

export function newIdempotencyKey(): string {
  if (typeof crypto !== "undefined" && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}
