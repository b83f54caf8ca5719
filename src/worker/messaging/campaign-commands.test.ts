import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { CampaignView, LedgerRow } from "../../shared/campaigns";
import { type Created, campaignsOf, driversCampaign, post, settled } from "../test/campaign-api";
import { api, createUser, signInAs, uniqueTag } from "../test/fixtures";

describe("POST /api/admin/campaigns — drivers", () => {
  it("creates the campaign, stores the deselected phones, audits it, and reports N = audience − deselected", async () => {
    const { user, token } = await signInAs("owner");
    const region = uniqueTag("Camp");
    const drivers: { id: number; phone: string }[] = [];
    for (let i = 0; i < 5; i++) drivers.push(await createUser({ humanRegion: region }));
    const excluded = [drivers[0]!.phone, drivers[1]!.phone.slice(2)];
    const res = await driversCampaign(token, region, { excludedPhones: excluded });
    expect(res.status).toBe(201);
    expect(res.body.message).toBe("Message sent successfully to 3 users.");
    expect(res.body.campaign).toMatchObject({
      app: "flex",
      channel: "sms",
      source: "drivers",
      message: "Your week is waiting",
      template: null,
      author: { id: user.id, name: "owner admin" },
      total: 3,
    });
    const stored = await env.DB.prepare("SELECT phone FROM campaign_exclusions WHERE campaign_id = ? ORDER BY phone")
      .bind(res.body.campaign.id)
      .all<{ phone: string }>();
    expect(stored.results.map((r) => r.phone)).toEqual([drivers[0]!.phone, drivers[1]!.phone].sort());
    const audit = await env.DB.prepare("SELECT actor_id, action, target, details FROM audit_log WHERE target = ?")
      .bind(`campaign:${res.body.campaign.id}`)
      .first<{ actor_id: number; action: string; details: string }>();
    expect(audit).toMatchObject({ actor_id: user.id, action: "campaign.create" });
    expect(JSON.parse(audit!.details)).toMatchObject({ channel: "sms", source: "drivers", total: 3, excluded: 2 });

    // The queue consumer expands and sends it (embedded outbox provider): exactly the three selected drivers.
    const done = await settled(token, res.body.campaign.id);
    expect(done).toMatchObject({ status: "done", total: 3, counts: { pending: 0, deferred: 0, sending: 0, sent: 3, delivered: 0, failed: 0, skipped: 0 } });
    for (const d of drivers) {
      const got = await env.DB.prepare("SELECT count(*) AS n FROM outbox WHERE \"to\" = ? AND body = 'Your week is waiting'")
        .bind(d.phone)
        .first<{ n: number }>();
      expect(got!.n, d.phone).toBe(excluded.some((p) => d.phone.endsWith(p)) ? 0 : 1);
    }
  });

  it("counts opted-out numbers in N and skips them", async () => {
    const { token } = await signInAs("owner");
    const region = uniqueTag("Opt");
    await createUser({ humanRegion: region });
    await createUser({ humanRegion: region, smsOptOut: true });
    const third = await createUser({ humanRegion: region });
    await env.DB.prepare("INSERT INTO opt_outs (phone, channel, keyword) VALUES (?, 'sms', 'STOP')").bind(third.phone).run();
    const key = uniqueTag("key");
    const res = await driversCampaign(token, region, { idempotencyKey: key });
    // The answer says who is skipped and why.
    expect(res.body.message).toBe("Message sent successfully to 3 users. 1 queued now, 2 skipped (opted out: 2).");
    const done = await settled(token, res.body.campaign.id);
    expect(done.counts).toMatchObject({ sent: 1, skipped: 2 });
    // A replay after the send answers the same words (its own message does not count against its cap).
    expect((await driversCampaign(token, region, { idempotencyKey: key })).body.message).toBe(res.body.message);
    const ledger = (await (await api(`/api/admin/campaigns/${done.id}/messages?status=skipped`, { token })).json()) as { rows: LedgerRow[] };
    expect(ledger.rows.every((r) => r.errorCode === "opted_out")).toBe(true);
  });

  it("answers a replayed key with the same campaign (200) and refuses the key for a different request (409)", async () => {
    const { user, token } = await signInAs("support");
    const region = uniqueTag("Idem");
    await createUser({ humanRegion: region });
    const body = {
      idempotencyKey: uniqueTag("double-click"),
      purpose: "service",
      source: "drivers",
      channel: "sms",
      message: "Once",
      audience: { region: [region] },
    };
    const first = await post("/api/admin/campaigns", token, body);
    const again = await post("/api/admin/campaigns", token, body);
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body.campaign.id).toBe(first.body.campaign.id);
    expect(again.body.message).toBe(first.body.message);
    const different = await post("/api/admin/campaigns", token, { ...body, message: "Twice" });
    expect(different.status).toBe(409);
    expect(different.body.error?.code).toBe("conflict");
    expect(await campaignsOf(user.id)).toBe(1);
    // Keys are per author: another admin's same key is another campaign.
    const other = await signInAs("support");
    expect((await post("/api/admin/campaigns", other.token, body)).status).toBe(201);
  });

  it("creates one campaign when the same request races itself", async () => {
    const { user, token } = await signInAs("owner");
    const region = uniqueTag("Race");
    await createUser({ humanRegion: region });
    const body = { idempotencyKey: uniqueTag("race"), purpose: "service", source: "drivers", channel: "sms", message: "Race", audience: { region: [region] } };
    const results = await Promise.all([
      post("/api/admin/campaigns", token, body),
      post("/api/admin/campaigns", token, body),
      post("/api/admin/campaigns", token, body),
    ]);
    expect(new Set(results.map((r) => r.body.campaign.id)).size).toBe(1);
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    expect(await campaignsOf(user.id)).toBe(1);
  });
});

describe("retry failed", () => {
  it("retries only the failed rows, once, and exports the ledger as CSV", async () => {
    const { token } = await signInAs("owner");
    const region = uniqueTag("Retry");
    const people: { id: number; phone: string }[] = [];
    for (let i = 0; i < 4; i++) people.push(await createUser({ humanRegion: region, name: i === 0 ? '=HYPERLINK("x")' : `P${i}` }));
    const created = await driversCampaign(token, region);
    const done = await settled(token, created.body.campaign.id);
    expect((await api(`/api/admin/campaigns/${done.id}/retry-failed`, { method: "POST", token })).status).toBe(422);

    // Two rows failed at the provider.
    await env.DB.prepare(
      "UPDATE campaign_messages SET status = 'failed', error_code = '30003', error_message = 'Unreachable, \"really\"' WHERE campaign_id = ? AND phone IN (?, ?)",
    )
      .bind(done.id, people[0]!.phone, people[1]!.phone)
      .run();
    const failedOnly = (await (await api(`/api/admin/campaigns/${done.id}/messages?status=failed`, { token })).json()) as { total: number; rows: LedgerRow[] };
    expect(failedOnly.total).toBe(2);
    expect(failedOnly.rows[0]).toMatchObject({ status: "failed", errorCode: "30003", attempts: 1, deadLettered: false });

    const retry = await api(`/api/admin/campaigns/${done.id}/retry-failed`, { method: "POST", token });
    expect(retry.status).toBe(201);
    const { campaign } = (await retry.json()) as { campaign: CampaignView };
    expect(campaign).toMatchObject({ source: "retry", total: 2, message: "Your week is waiting" });
    // A second click, even by another admin, answers the same retry.
    const other = await signInAs("support");
    const again = await api(`/api/admin/campaigns/${done.id}/retry-failed`, { method: "POST", token: other.token });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { campaign: CampaignView }).campaign.id).toBe(campaign.id);
    const retried = await settled(token, campaign.id);
    expect(retried.counts.sent).toBe(2);

    const csv = await api(`/api/admin/campaigns/${done.id}/export.csv`, { token });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    expect(csv.headers.get("content-disposition")).toBe(`attachment; filename="campaign-${done.id}.csv"`);
    // Phones and names are personal data: no cache keeps the file.
    expect(csv.headers.get("cache-control")).toBe("no-store");
    const lines = (await csv.text()).trim().split("\r\n");
    expect(lines[0]).toBe("phone,name,status,provider_id,error_code,error_message,attempts,dead_lettered,updated_at");
    expect(lines).toHaveLength(5);
    // Phones start with "+", so they are defused like any other cell that does.
    const first = lines.find((l) => l.startsWith(`'${people[0]!.phone}`))!;
    // A name that a spreadsheet would run as a formula is defused; quotes are doubled.
    expect(first).toContain(`"'=HYPERLINK(""x"")",failed,`);
    expect(first).toContain(`"Unreachable, ""really"""`);
  });
  /** A settled drivers campaign of `n` people in a fresh region, and its id. */
  async function sentTo(token: string, n: number, extra: Record<string, unknown> = {}) {
    const region = uniqueTag("Find");
    const people: { id: number; phone: string }[] = [];
    for (let i = 0; i < n; i++) people.push(await createUser({ humanRegion: region }));
    const created = await driversCampaign(token, region, extra);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return { people, id: (await settled(token, created.body.campaign.id)).id };
  }
  const fail = (campaignId: number, phones: string[]) =>
    env.DB.prepare(`UPDATE campaign_messages SET status = 'failed', error_code = '30003' WHERE campaign_id = ? AND phone IN (SELECT value FROM json_each(?))`)
      .bind(campaignId, JSON.stringify(phones))
      .run();
  const retryOf = async (id: number, token: string) => {
    const res = await api(`/api/admin/campaigns/${id}/retry-failed`, { method: "POST", token });
    return { status: res.status, body: (await res.json()) as Created };
  };
  const recipientsOf = async (campaignId: number) =>
    (await env.DB.prepare("SELECT phone FROM campaign_messages WHERE campaign_id = ? ORDER BY phone").bind(campaignId).all<{ phone: string }>()).results.map(
      (r) => r.phone,
    );

  it("retries each failed row once: a row failing later (a late receipt) goes into the next retry alone", async () => {
    const { token } = await signInAs("owner");
    const { people, id } = await sentTo(token, 3);
    await fail(id, [people[0]!.phone]);
    const first = await retryOf(id, token);
    expect(first.status).toBe(201);
    await settled(token, first.body.campaign.id);
    expect(await recipientsOf(first.body.campaign.id)).toEqual([people[0]!.phone]);

    // A delivery receipt arrives late and fails another row of the original campaign.
    await fail(id, [people[1]!.phone]);
    const second = await retryOf(id, token);
    expect(second.status).toBe(201);
    expect(second.body.campaign.id).not.toBe(first.body.campaign.id);
    await settled(token, second.body.campaign.id);
    expect(await recipientsOf(second.body.campaign.id)).toEqual([people[1]!.phone]);
    // Nothing left to retry: the latest retry answers.
    const third = await retryOf(id, token);
    expect(third.status).toBe(200);
    expect(third.body.campaign.id).toBe(second.body.campaign.id);
  });

  it("two admins clicking at once make one retry", async () => {
    const owner = await signInAs("owner");
    const billing = await signInAs("billing");
    const { people, id } = await sentTo(owner.token, 2);
    await fail(id, [people[0]!.phone, people[1]!.phone]);
    const [a, b] = await Promise.all([retryOf(id, owner.token), retryOf(id, billing.token)]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    expect(a.body.campaign.id).toBe(b.body.campaign.id);
    const retries = await env.DB.prepare("SELECT count(*) AS n FROM campaigns WHERE source = 'retry' AND json_extract(audience, '$.campaignId') = ?")
      .bind(id)
      .first<{ n: number }>();
    expect(retries?.n).toBe(1);
    // Its audit row is written in the retry's own transaction, once, with the rows it claimed.
    const audits = await env.DB.prepare("SELECT details FROM audit_log WHERE action = 'campaign.create' AND target = ?")
      .bind(`campaign:${a.body.campaign.id}`)
      .all<{ details: string }>();
    expect(audits.results).toHaveLength(1);
    expect(JSON.parse(audits.results[0]!.details)).toMatchObject({ source: "retry", parent: id, total: 2, liftLimit: false });
  });

  it("checks the segment limit again: a message the owner lifted is not the support admin's to resend", async () => {
    const owner = await signInAs("owner");
    const support = await signInAs("support");
    const long = "A message longer than one SMS segment, which only the owner may send. ".repeat(3);
    const { people, id } = await sentTo(owner.token, 1, { message: long, liftLimit: true });
    await fail(id, [people[0]!.phone]);
    const refused = await retryOf(id, support.token);
    expect(refused.status).toBe(403);
    expect((await retryOf(id, owner.token)).status).toBe(201);
  });
});
