import { env } from "cloudflare:test";
import type { CampaignView } from "../../shared/campaigns";
import { api, uniqueTag } from "./fixtures";

/** A campaign sent and followed through the API, for the campaign tests. */

export type Created = { campaign: CampaignView; message: string; error?: { code: string; message: string; details?: unknown } };

export const post = async (path: string, token: string, json: unknown) => {
  const res = await api(path, { method: "POST", token, json });
  return { status: res.status, body: (await res.json()) as Created };
};

export async function driversCampaign(token: string, region: string, extra: Record<string, unknown> = {}) {
  return post("/api/admin/campaigns", token, {
    idempotencyKey: uniqueTag("key"),
    purpose: "service",
    source: "drivers",
    channel: "sms",
    message: "Your week is waiting",
    audience: { app: "flex", region: [region] },
    ...extra,
  });
}

/** The consumer runs on its own in the test runtime (the queue is real); wait for the campaign to settle. */
export async function settled(token: string, id: number, timeoutMs = 15_000): Promise<CampaignView> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(`/api/admin/campaigns/${id}`, { token });
    const { campaign } = (await res.json()) as { campaign: CampaignView };
    if (campaign.status === "done" || campaign.status === "failed") return campaign;
    if (Date.now() > until) throw new Error(`campaign ${id} still ${campaign.status}: ${JSON.stringify(campaign.counts)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const campaignsOf = async (authorId: number) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM campaigns WHERE author_id = ?").bind(authorId).first<{ n: number }>())!.n;
