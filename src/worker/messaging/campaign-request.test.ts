import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { campaignsOf, driversCampaign, post, settled } from "../test/campaign-api";
import { api, createUser, signInAs, uniquePhone, uniqueTag } from "../test/fixtures";

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

describe("POST /api/admin/campaigns — billing data", () => {
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
