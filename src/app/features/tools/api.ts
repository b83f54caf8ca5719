import useSWR, { type SWRConfiguration } from "swr";
import { api, ApiClientError, swrFetcher } from "../../lib/api-client";
import type { WhatsAppTemplate } from "../../components/ui/TemplatePicker";

const noRetryOn4xx: SWRConfiguration = {
  shouldRetryOnError: (err: Error) => !(err instanceof ApiClientError && err.status >= 400 && err.status < 500),
};

export function useOwnerName() {
  return useSWR<{ ownerName: string }, Error>("/api/admin/settings", swrFetcher, noRetryOn4xx);
}

/** WhatsApp templates need billingDetails. */
export function useTemplates(allowed: boolean) {
  return useSWR<{ Items: WhatsAppTemplate[] }, Error>(allowed ? "/api/flex/v1/admin/sendWhatsapp" : null, swrFetcher, noRetryOn4xx);
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
