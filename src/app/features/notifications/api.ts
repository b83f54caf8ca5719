import useSWR, { type SWRConfiguration, type SWRResponse } from "swr";
import { api, ApiClientError, swrFetcher, type Query } from "../../lib/api-client";
import type { WhatsAppTemplate } from "../../components/ui/TemplatePicker";

/** A 4xx will not get better by asking again (a 403 hides the referral list, for one). */
export const noRetryOn4xx: SWRConfiguration = {
  shouldRetryOnError: (err: Error) => !(err instanceof ApiClientError && err.status >= 400 && err.status < 500),
};

export type AdminSettings = { ownerName: string; smsProvider: string; whatsappProvider: string; sendRatePerSecond: number };

export function useSettings() {
  return useSWR<AdminSettings, Error>("/api/admin/settings", swrFetcher, noRetryOn4xx);
}

export function useRegions(app: "flex" | "spark") {
  return useSWR<{ Items: string[] }, Error>(app === "flex" ? ["/api/admin/regions", { app }] : null, swrFetcher, noRetryOn4xx);
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

/** Referral codes need billingDetails; without it (or on a 403) the select is hidden. */
export function useReferrals(allowed: boolean): SWRResponse<{ Items: { referralCode: string }[] }, Error> {
  return useSWR<{ Items: { referralCode: string }[] }, Error>(allowed ? ["/api/flex/v1/admin/referrals", "all"] : null, allItems, noRetryOn4xx);
}

/** WhatsApp templates need billingDetails too. */
export function useTemplates(allowed: boolean): SWRResponse<{ Items: WhatsAppTemplate[] }, Error> {
  return useSWR<{ Items: WhatsAppTemplate[] }, Error>(allowed ? ["/api/flex/v1/admin/sendWhatsapp", "all"] : null, allItems, noRetryOn4xx);
}

export type Page<Row> = { total: number; page: number; pageSize: number; rows: Row[] };

export function usePage<Row>(path: string, query: Query | null, options?: SWRConfiguration) {
  return useSWR<Page<Row>, Error>(query ? [path, query] : null, swrFetcher, { keepPreviousData: true, ...noRetryOn4xx, ...options });
}

export type CampaignBody = {
  idempotencyKey: string;
  source: "drivers" | "invitations";
  channel: "sms" | "whatsapp";
  message?: string;
  template?: { name: string; language: string };
  audience: Query;
  excludedPhones: string[];
  liftLimit?: boolean;
};

export type CreatedCampaign = { campaign: { id: number; total: number }; message?: string };

export function createCampaign(body: CampaignBody) {
  return api.post<CreatedCampaign>("/api/admin/campaigns", body);
}

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
