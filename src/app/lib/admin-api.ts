import useSWR, { type SWRConfiguration, type SWRResponse } from "swr";
import type { WhatsAppTemplate } from "../components/ui/TemplatePicker";
import { ApiClientError, api, swrFetcher } from "./api-client";

/** API helpers the admin screens share (notifications, tools, campaigns); only they import this. */

/** A 4xx will not get better by asking again (a 403 hides the referral list, for one). */
export const noRetryOn4xx: SWRConfiguration = {
  shouldRetryOnError: (err: Error) => !(err instanceof ApiClientError && err.status >= 400 && err.status < 500),
};

export type Page<Row> = { total: number; page: number; pageSize: number; rows: Row[] };

export type AdminSettings = { ownerName: string; smsProvider: string; whatsappProvider: string; sendRatePerSecond: number };

export function useSettings() {
  return useSWR<AdminSettings, Error>("/api/admin/settings", swrFetcher, noRetryOn4xx);
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

/** The SWR fetcher for a key `[path, "all"]`: every page of a short list. */
export const allItems = <T>([path]: [string, "all"]) => fetchAllItems<T>(path);

/** WhatsApp templates need billingDetails; without it (or on a 403) none are asked for. */
export function useTemplates(allowed: boolean): SWRResponse<{ Items: WhatsAppTemplate[] }, Error> {
  return useSWR<{ Items: WhatsAppTemplate[] }, Error>(allowed ? ["/api/flex/v1/admin/sendWhatsapp", "all"] : null, allItems, noRetryOn4xx);
}

/** What every new campaign carries, whatever its audience. */
export type CampaignMessage = {
  idempotencyKey: string;
  channel: "sms" | "whatsapp";
  message?: string;
  template?: { name: string; language: string };
  liftLimit?: boolean;
  purpose: "marketing" | "service" | "payment" | "code";
  language: "en" | "es";
  scheduledAt?: number;
};

export type CreatedCampaign = { campaign: { id: number; total: number }; message?: string };

export function createCampaign(body: CampaignMessage & { source: string }) {
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
