import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { CampaignView } from "../../shared/campaigns";
import { driversCampaign, settled } from "../test/campaign-api";
import { api, createUser, signInAs, uniqueTag } from "../test/fixtures";

describe("campaign list, detail, ledger and export", () => {
  it("lists campaigns newest first with counts by status, paged", async () => {
    const { token } = await signInAs("owner");
    const region = uniqueTag("List");
    await createUser({ humanRegion: region });
    const a = await driversCampaign(token, region);
    const b = await driversCampaign(token, region);
    const res = await api("/api/admin/campaigns?page=1&pageSize=20", { token });
    const page = (await res.json()) as { total: number; rows: CampaignView[] };
    expect(page.total).toBeGreaterThanOrEqual(2);
    const ids = page.rows.map((c) => c.id);
    expect(ids.indexOf(b.body.campaign.id)).toBeLessThan(ids.indexOf(a.body.campaign.id));
    expect(Object.keys(page.rows[0]!.counts).sort()).toEqual(["deferred", "delivered", "failed", "pending", "sending", "sent", "skipped"]);
    expect((await api("/api/admin/campaigns?pageSize=7", { token })).status).toBe(400);
    expect((await api("/api/admin/campaigns/999999999", { token })).status).toBe(404);
    expect((await api("/api/admin/campaigns/abc", { token })).status).toBe(400);
    expect((await api("/api/admin/campaigns/999999999/messages", { token })).status).toBe(404);
  });
  it("exports every column defused, for comma and semicolon locales alike", async () => {
    const { token } = await signInAs("owner");
    const region = uniqueTag("Csv");
    const person = await createUser({ humanRegion: region, name: "Ana;=1+1" });
    const created = await driversCampaign(token, region);
    const { id } = await settled(token, created.body.campaign.id);
    await env.DB.prepare("UPDATE campaign_messages SET provider_id = ?, error_code = ?, status = 'failed' WHERE campaign_id = ?")
      .bind("-2+3+cmd|' /C calc'!A0", "@SUM(1)", id)
      .run();
    const line = (await (await api(`/api/admin/campaigns/${id}/export.csv`, { token })).text()).trim().split("\r\n")[1]!;
    expect(line.startsWith(`'${person.phone},"Ana;=1+1",failed,'-2+3+cmd|' /C calc'!A0,'@SUM(1),`)).toBe(true);
  });
});
