import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createUser, signInAs, uniquePhone, uniqueTag } from "../test/fixtures";
import type { CampaignView, LedgerRow } from "./campaigns";

type Created = { campaign: CampaignView; message: string; error?: { code: string; message: string; details?: unknown } };

const post = async (path: string, token: string, json: unknown) => {
  const res = await api(path, { method: "POST", token, json });
  return { status: res.status, body: (await res.json()) as Created };
};

async function driversCampaign(token: string, region: string, extra: Record<string, unknown> = {}) {
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
async function settled(token: string, id: number, timeoutMs = 15_000): Promise<CampaignView> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(`/api/admin/campaigns/${id}`, { token });
    const { campaign } = (await res.json()) as { campaign: CampaignView };
    if (campaign.status === "done" || campaign.status === "failed") return campaign;
    if (Date.now() > until) throw new Error(`campaign ${id} still ${campaign.status}: ${JSON.stringify(campaign.counts)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const campaignsOf = async (authorId: number) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM campaigns WHERE author_id = ?").bind(authorId).first<{ n: number }>())!.n;

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

describe("POST /api/admin/campaigns — the one-segment limit", () => {
  const long = "x".repeat(161);

  it("refuses an SMS over one segment with 422, writing nothing", async () => {
    const { user, token } = await signInAs("owner");
    const region = uniqueTag("Len");
    await createUser({ humanRegion: region });
    const res = await driversCampaign(token, region, { message: long });
    expect(res.status).toBe(422);
    // details.reason names the refusal, so the SPA says it in the admin's language (docs/api.md, languages).
    expect(res.body.error).toMatchObject({ code: "unprocessable", details: { encoding: "GSM_7BIT", messages: 2, reason: "sms_over_one_segment" } });
    const emoji = await driversCampaign(token, region, { message: "😀".repeat(36) });
    expect(emoji.status).toBe(422);
    expect(await campaignsOf(user.id)).toBe(0);
  });

  it("lets only the owner lift it, and never past ten segments", async () => {
    const region = uniqueTag("Lift");
    await createUser({ humanRegion: region });
    const support = await signInAs("support");
    const refused = await driversCampaign(support.token, region, { message: long, liftLimit: true });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ message: "Only the owner may lift the character limit", details: { reason: "lift_limit_owner_only" } });
    const billing = await signInAs("billing");
    expect((await driversCampaign(billing.token, region, { message: long, liftLimit: true })).status).toBe(403);
    expect(await campaignsOf(support.user.id)).toBe(0);

    const owner = await signInAs("owner");
    expect((await driversCampaign(owner.token, region, { message: long, liftLimit: true })).status).toBe(201);
    const tooLong = await driversCampaign(owner.token, region, { message: "x".repeat(1531), liftLimit: true });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.error).toMatchObject({ details: { messages: 11, max: 10, reason: "sms_over_max_segments" } });
  });
});

describe("POST /api/admin/campaigns — WhatsApp", () => {
  it("needs an approved template that exists", async () => {
    const { token } = await signInAs("owner");
    const region = uniqueTag("Wa");
    const driver = await createUser({ humanRegion: region });
    const name = uniqueTag("tpl");
    await env.DB.prepare("INSERT INTO whatsapp_templates (id, name, language, status, category, components) VALUES (?, ?, 'en_US', 'APPROVED', 'UTILITY', ?)")
      .bind(
        uniqueTag("id"),
        name,
        JSON.stringify([
          { type: "HEADER", format: "TEXT", text: "Hi" },
          { type: "BODY", text: "Come back" },
        ]),
      )
      .run();
    await env.DB.prepare("INSERT INTO whatsapp_templates (id, name, language, status, components) VALUES (?, ?, 'en_US', 'REJECTED', '[]')")
      .bind(uniqueTag("id"), `${name}-rejected`)
      .run();
    const base = { source: "drivers", channel: "whatsapp", audience: { region: [region] } };
    expect((await post("/api/admin/campaigns", token, { ...base, idempotencyKey: uniqueTag("k") })).status).toBe(400);
    const unknown = await post("/api/admin/campaigns", token, {
      ...base,
      idempotencyKey: uniqueTag("k"),
      purpose: "service",
      template: { name: "nope", language: "en_US" },
    });
    expect(unknown.status).toBe(422);
    const rejected = await post("/api/admin/campaigns", token, {
      ...base,
      idempotencyKey: uniqueTag("k"),
      purpose: "service",
      template: { name: `${name}-rejected`, language: "en_US" },
    });
    expect(rejected.status).toBe(422);
    const ok = await post("/api/admin/campaigns", token, {
      ...base,
      idempotencyKey: uniqueTag("k"),
      purpose: "service",
      template: { name, language: "en_US" },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.campaign).toMatchObject({ channel: "whatsapp", template: { name, language: "en_US" }, message: null });
    await settled(token, ok.body.campaign.id);
    const sent = await env.DB.prepare('SELECT channel, body FROM outbox WHERE "to" = ?').bind(driver.phone).first<{ channel: string; body: string }>();
    expect(sent).toEqual({ channel: "whatsapp", body: "Hi\n\nCome back" });
  });
});

describe("POST /api/admin/campaigns — a typed phone list", () => {
  it("validates and de-duplicates the list, naming every bad number in the 400", async () => {
    const { user, token } = await signInAs("owner");
    const bad = await post("/api/admin/campaigns", token, {
      idempotencyKey: uniqueTag("list"),
      purpose: "service",
      source: "list",
      channel: "sms",
      message: "Hi",
      phones: ["(305) 555-0100", "555-0100", "3055550100", "not a number"],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({
      code: "validation_failed",
      message: "2 phone numbers are not valid: 555-0100, not a number",
      details: [
        { path: "phones.1", message: "Enter a US or Canada phone number", value: "555-0100", reason: "format" },
        { path: "phones.3", message: "Enter a US or Canada phone number", value: "not a number", reason: "format" },
      ],
    });
    expect(await campaignsOf(user.id)).toBe(0);

    const [a, b] = [uniquePhone(), uniquePhone()];
    const ok = await post("/api/admin/campaigns", token, {
      idempotencyKey: uniqueTag("list"),
      purpose: "service",
      source: "list",
      channel: "sms",
      message: "Hi list",
      phones: [a, a.slice(2), `1${b.slice(2)}`],
    });
    expect(ok.status).toBe(201);
    expect(ok.body.message).toBe("Message sent successfully to 2 users.");
    const done = await settled(token, ok.body.campaign.id);
    expect(done.counts.sent).toBe(2);
  });

  it("refuses numbers we may not text: toll-free, premium, Caribbean, not in service, N11 exchanges", async () => {
    const { user, token } = await signInAs("owner");
    const res = await post("/api/admin/campaigns", token, {
      idempotencyKey: uniqueTag("list"),
      source: "list",
      channel: "sms",
      message: "Hi",
      phones: ["(800) 555-0100", "+1 900 555 0100", "+1 876 555 0100", "(555) 555-0100", "(305) 911-0100", "(305) 555-0100"],
      purpose: "service",
    });
    expect(res.status).toBe(400);
    expect(((res.body.error?.details ?? []) as { reason: string }[]).map((d) => d.reason)).toEqual([
      "toll_free",
      "premium",
      "outside_us_canada",
      "not_in_service",
      "exchange",
    ]);
    expect(await campaignsOf(user.id)).toBe(0);
  });

  it("refuses empty lists, bad exclusions and an empty audience", async () => {
    const { user, token } = await signInAs("owner");
    expect(
      (
        await post("/api/admin/campaigns", token, {
          idempotencyKey: uniqueTag("l"),
          purpose: "service",
          source: "list",
          channel: "sms",
          message: "Hi",
          phones: [],
        })
      ).status,
    ).toBe(400);
    const badExclusion = await driversCampaign(token, uniqueTag("R"), { excludedPhones: ["12"] });
    expect(badExclusion.status).toBe(400);
    expect(badExclusion.body.error?.details).toEqual([
      { path: "excludedPhones.0", message: "Enter a US or Canada phone number", value: "12", reason: "format" },
    ]);
    const empty = await driversCampaign(token, uniqueTag("Nobody"));
    expect(empty.status).toBe(422);
    const region = uniqueTag("AllOut");
    const only = await createUser({ humanRegion: region });
    expect((await driversCampaign(token, region, { excludedPhones: [only.phone] })).status).toBe(422);
    expect(await campaignsOf(user.id)).toBe(0);
  });

  it("refuses malformed bodies with 400: bad JSON, unknown source, bad audience filters", async () => {
    const { user, token } = await signInAs("owner");
    const raw = await api("/api/admin/campaigns", { method: "POST", token, body: "{nope", headers: { "Content-Type": "application/json" } });
    expect(raw.status).toBe(400);
    expect(
      (await post("/api/admin/campaigns", token, { idempotencyKey: "k", purpose: "service", source: "everyone", channel: "sms", message: "x" })).status,
    ).toBe(400);
    const badAudience = await post("/api/admin/campaigns", token, {
      idempotencyKey: "k",
      purpose: "service",
      source: "drivers",
      channel: "sms",
      message: "x",
      audience: { startDate: "2026-02-30" },
    });
    expect(badAudience.status).toBe(400);
    expect(badAudience.body.error?.details).toEqual([{ path: "audience.startDate", message: "Not a date" }]);
    expect((await post("/api/admin/campaigns", token, { source: "list", channel: "sms", message: "x", phones: [uniquePhone()] })).status).toBe(400);
    expect(await campaignsOf(user.id)).toBe(0);
  });
});

describe("campaign permissions", () => {
  it("answers 401 without a token and 403 to a driver, for every campaign call", async () => {
    const driver = await signInAs("driver");
    const calls: [string, string][] = [
      ["POST", "/api/admin/campaigns"],
      ["GET", "/api/admin/campaigns"],
      ["GET", "/api/admin/campaigns/1"],
      ["GET", "/api/admin/campaigns/1/messages"],
      ["POST", "/api/admin/campaigns/1/retry-failed"],
      ["GET", "/api/admin/campaigns/1/export.csv"],
      ["GET", "/api/admin/outbox"],
      ["GET", "/api/admin/settings"],
      ["GET", "/api/admin/invitation-audience"],
      ["GET", "/api/admin/regions"],
    ];
    for (const [method, path] of calls) {
      expect((await api(path, { method })).status, `${method} ${path}`).toBe(401);
      expect((await api(path, { method, token: driver.token, json: method === "POST" ? {} : undefined })).status, `${method} ${path}`).toBe(403);
    }
  });
});

describe("campaign list, detail, ledger, retry and export", () => {
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
    const lines = (await csv.text()).trim().split("\r\n");
    expect(lines[0]).toBe("phone,name,status,provider_id,error_code,error_message,attempts,dead_lettered,updated_at");
    expect(lines).toHaveLength(5);
    const first = lines.find((l) => l.startsWith(people[0]!.phone))!;
    // A name that a spreadsheet would run as a formula is defused; quotes are doubled.
    expect(first).toContain(`"'=HYPERLINK(""x"")",failed,`);
    expect(first).toContain(`"Unreachable, ""really"""`);
  });
});

describe("retry failed, export and permissions: the review's findings", () => {
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
    expect(line.startsWith(`${person.phone},"Ana;=1+1",failed,'-2+3+cmd|' /C calc'!A0,'@SUM(1),`)).toBe(true);
  });

  it("needs billingDetails to send a WhatsApp template or to filter by referral code", async () => {
    const support = await signInAs("support");
    const billing = await signInAs("billing");
    const whatsapp = (token: string) =>
      post("/api/admin/campaigns", token, {
        idempotencyKey: uniqueTag("wa"),
        source: "list",
        channel: "whatsapp",
        purpose: "service",
        template: { name: "welcome_back", language: "en_US" },
        phones: [uniquePhone()],
      });
    const refused = await whatsapp(support.token);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ details: { permission: "billingDetails" } });
    expect(await campaignsOf(support.user.id)).toBe(0);
    // The legacy call too.
    const legacy = await api("/api/flex/v1/admin/sendWhatsapp", {
      method: "POST",
      token: support.token,
      json: { numbers: [{ number: uniquePhone() }], msgTemplate: { name: "welcome_back", language: "en_US" }, purpose: "service" },
    });
    expect(legacy.status).toBe(403);
    expect((await whatsapp(billing.token)).status).not.toBe(403);

    const region = uniqueTag("Ref");
    await createUser({ humanRegion: region, referralCode: "MIAMI10" });
    expect((await api(`/api/admin/audience?app=flex&region=${region}&referral=MIAMI10`, { token: support.token })).status).toBe(403);
    expect((await api(`/api/admin/audience?app=flex&region=${region}&referral=MIAMI10`, { token: billing.token })).status).toBe(200);
    expect((await driversCampaign(support.token, region, { audience: { app: "flex", region: [region], referral: ["MIAMI10"] } })).status).toBe(403);
    expect((await api(`/api/admin/audience?app=flex&region=${region}`, { token: support.token })).status).toBe(200);
  });
});

describe("GET /api/admin/settings and /api/admin/outbox", () => {
  it("names the owner admin and the providers", async () => {
    const { token } = await signInAs("support");
    const res = await api("/api/admin/settings", { token });
    const body = (await res.json()) as { ownerName: string; smsProvider: string; whatsappProvider: string; sendRatePerSecond: number };
    expect(body).toMatchObject({ smsProvider: "outbox", whatsappProvider: "outbox", sendRatePerSecond: 1000 });
    expect(typeof body.ownerName).toBe("string");
  });

  it("pages the outbox newest first, filtered by number", async () => {
    const { token } = await signInAs("owner");
    const phone = uniquePhone();
    for (const body of ["one", "two", "three"]) {
      await env.DB.prepare("INSERT INTO outbox (channel, \"to\", body, provider_id) VALUES ('sms', ?, ?, ?)").bind(phone, body, uniqueTag("pid")).run();
    }
    const res = await api(`/api/admin/outbox?to=${encodeURIComponent(`(${phone.slice(2, 5)}) ${phone.slice(5, 8)}-${phone.slice(8)}`)}&pageSize=20`, { token });
    const page = (await res.json()) as { total: number; rows: { to: string; body: string; channel: string }[] };
    expect(page.total).toBe(3);
    expect(page.rows.map((r) => r.body)).toEqual(["three", "two", "one"]);
    expect((await api("/api/admin/outbox?to=12", { token })).status).toBe(400);
    expect((await api("/api/admin/outbox?channel=fax", { token })).status).toBe(400);
  });
});
