import type { InferRequestType } from "hono/client";
import type { TFunction } from "i18next";
import useSWR, { type SWRConfiguration } from "swr";
import i18n from "../../i18n";
import { ApiClientError, api, unwrap } from "../../lib/api-client";

/** API helpers the admin screens share (notifications, tools, campaigns). */

/** A 4xx will not get better by asking again (a 403 hides the referral list, for one). */
export const noRetryOn4xx: SWRConfiguration = {
  shouldRetryOnError: (err: Error) => !(err instanceof ApiClientError && err.status >= 400 && err.status < 500),
};

export function useSettings() {
  return useSWR("admin/settings", () => unwrap(api.admin.settings.$get()), noRetryOn4xx);
}

type ItemsPage<T> = { Items: T[]; LastEvaluatedKey?: unknown };

/**
 * A short list the server pages (referral codes, templates): all of it, following the
 * continuation (`LastEvaluatedKey`, docs/api.md) 100 rows a request, at most 20 requests. These
 * feed a select, so a first page alone would silently hide options.
 */
export async function fetchAll<T>(fetchPage: (query: { Limit: string; ExclusiveStartKey?: string }) => Promise<ItemsPage<T>>): Promise<{ Items: T[] }> {
  const items: T[] = [];
  let after: unknown;
  for (let request = 0; request < 20; request++) {
    const res = await fetchPage({ Limit: "100", ...(after === undefined ? {} : { ExclusiveStartKey: JSON.stringify(after) }) });
    items.push(...res.Items);
    after = res.LastEvaluatedKey;
    if (after === undefined || res.Items.length === 0) break;
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

/**
 * The server's answer in the admin's language (docs/api.md, languages): the API words its errors
 * in English and names each refusal in `details.reason`; the screen says it in its own words,
 * filled from the details. A refusal it has no words for is shown as the server wrote it in
 * English, and in Spanish as its error code's general meaning. Null for network errors and bare
 * statuses (the screen's own "An error has occurred.").
 */
export function serverMessage(err: unknown, t: TFunction<"admin">): string | null {
  if (!(err instanceof ApiClientError)) return null;
  if (err.code === "network_error" || err.code === "http_error") return null;
  const details = err.details;
  if (Array.isArray(details)) {
    // A list of numbers refused one by one (the tools page and the campaign API's phone lists).
    const phones = details.filter((issue): issue is { value: string } => typeof issue?.value === "string");
    if (phones.length > 0 && phones.length === details.length) {
      const shown = phones.slice(0, 5).map((issue) => issue.value);
      return t("serverErrors.phonesInvalid", { count: phones.length, list: `${shown.join(", ")}${phones.length > 5 ? " …" : ""}` });
    }
  } else if (details && typeof details === "object" && "reason" in details && typeof details.reason === "string") {
    const key = `serverErrors.reasons.${details.reason}`;
    if (i18n.exists(key, { ns: "admin" })) return t(key as "serverErrors.reasons.audience_empty", details as Record<string, unknown>);
  }
  if (i18n.language === "en" && err.message) return err.message;
  return t(`serverErrors.codes.${err.code}` as "serverErrors.codes.internal", { defaultValue: t("errors.generic") });
}

/** An idempotency key per review: a second click (or a replayed request) sends once. */
export function newIdempotencyKey(): string {
  if (typeof crypto !== "undefined" && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
