import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { REGISTRATION_CONSENT } from "../../shared/consent-texts";
import { recordConsent } from "../compliance/consent";
import { createDb } from "../db/client";
import { api, createUser, invite, signInAs, uniquePhone, uniqueTag } from "../test/fixtures";

type Items<T> = { Items: T[]; total: number; page: number; pageSize: number; error?: { code: string; message: string; details?: unknown } };
const getJson = async <T>(path: string, token: string) => {
  const res = await api(path, { token });
  return { status: res.status, body: (await res.json()) as Items<T> };
};

describe("GET /api/flex/v1/all-users-table and /api/spark/v1/admin/all-users-table", () => {
  it("pages the old user items of one app, administrators included", async () => {
    const { token } = await signInAs("billing");
    const region = uniqueTag("Legacy");
    const driver = await createUser({
      humanRegion: region,
      name: "Lee Gacy",
      email: "lee@example.com",
      referralCode: "OLD1",
      goodStanding: true,
      expirationAt: Date.UTC(2099, 0, 2),
      accountConnected: true,
      status: "start",
    });
    const admin = await createUser({ humanRegion: region, isAdmin: true, roleName: "owner", billingDetails: true });
    const res = await getJson<Record<string, unknown>>(`/api/flex/v1/all-users-table?region=${region}&sort=name&dir=asc`, token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 2, page: 1, pageSize: 20 });
    expect(res.body.Items.find((u) => u.id === driver.id)).toEqual({
      id: driver.id,
      name: "Lee Gacy",
      phoneNumber: driver.phone,
      flexEmail: "lee@example.com",
      goodStanding: true,
      expirationDateTimestamp: Date.UTC(2099, 0, 2),
      expirationDate: "02/01/99",
      createDateTimestamp: expect.any(Number),
      humanRegion: region,
      driverOptions: { deliveryArea: null },
      proxyInstalled: true,
      setupComplete: false,
      isAdmin: false,
      referral: "OLD1",
      status: "start",
      stripeExpressId: null,
      role: null,
    });
    expect(res.body.Items.find((u) => u.id === admin.id)).toMatchObject({ isAdmin: true, role: { name: "owner", properties: { billingDetails: true } } });
    // Without billingDetails, the same item without its billing fields.
    const support = await getJson<Record<string, unknown>>(
      `/api/flex/v1/all-users-table?region=${region}&sort=name&dir=asc`,
      (await signInAs("support")).token,
    );
    const { referral: _referral, stripeExpressId: _stripe, ...withoutBilling } = res.body.Items.find((u) => u.id === driver.id)!;
    expect(support.body.Items.find((u) => u.id === driver.id)).toEqual(withoutBilling);

    const area = uniqueTag("SparkArea");
    const spark = await createUser({ app: "spark", deliveryArea: area });
    const sparkTable = await getJson<Record<string, unknown>>(`/api/spark/v1/admin/all-users-table?region=${area}`, token);
    expect(sparkTable.body.Items.map((u) => u.id)).toEqual([spark.id]);
    // The path decides the app, whatever the query says.
    expect((await getJson(`/api/flex/v1/all-users-table?app=spark&region=${area}`, token)).body.total).toBe(0);
    expect((await getJson("/api/flex/v1/all-users-table?pageSize=500", token)).status).toBe(400);
  });
});

describe("GET /api/flex/v1/admin/invitations", () => {
  it("pages the raw invitations, newest first, with the old field names", async () => {
    const { token } = await signInAs("support");
    const phone = uniquePhone();
    // Later than any invitation other files made in the shared database, so it is the newest.
    const latest = await env.DB.prepare("SELECT max(invited_at) AS at FROM invitations").first<{ at: number | null }>();
    const at = Math.max(Date.now(), latest?.at ?? 0) + 10_000_000;
    await invite(phone, { invitedAt: at, freeWeek: true });
    const res = await getJson<{ phoneNumber: string; dateInvitedTimestamp: number; freeWeek: boolean }>("/api/flex/v1/admin/invitations?pageSize=20", token);
    expect(res.status).toBe(200);
    expect(res.body.Items[0]).toEqual({ phoneNumber: phone, dateInvitedTimestamp: at, freeWeek: true });
    expect(res.body.total).toBeGreaterThanOrEqual(1);
  });
});

describe("billingDetails calls", () => {
  it("lists referral codes only for roles with billingDetails", async () => {
    const code = uniqueTag("CODE").toUpperCase();
    await env.DB.prepare("INSERT INTO referral_codes (code, app, owner) VALUES (?, 'flex', 'Partner')").bind(code).run();
    const support = await signInAs("support");
    const refused = await getJson("/api/flex/v1/admin/referrals", support.token);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toEqual({ code: "forbidden", message: "Requires the billingDetails permission" });
    const billing = await signInAs("billing");
    const all: string[] = [];
    for (let page = 1; ; page++) {
      const res = await getJson<{ referralCode: string }>(`/api/flex/v1/admin/referrals?page=${page}&pageSize=100`, billing.token);
      all.push(...res.body.Items.map((i) => i.referralCode));
      if (all.length >= res.body.total) break;
    }
    expect(all).toContain(code);
  });

  it("lists WhatsApp templates only for roles with billingDetails", async () => {
    const name = uniqueTag("legacy_tpl");
    await env.DB.prepare("INSERT INTO whatsapp_templates (id, name, language, status, components) VALUES (?, ?, 'es_MX', 'APPROVED', ?)")
      .bind(
        uniqueTag("id"),
        name,
        JSON.stringify([
          { type: "HEADER", format: "TEXT", text: "Hola" },
          { type: "BODY", text: "Cuerpo" },
        ]),
      )
      .run();
    expect((await getJson("/api/flex/v1/admin/sendWhatsapp", (await signInAs("support")).token)).status).toBe(403);
    const owner = await signInAs("owner");
    const res = await getJson<{ id: string; name: string; language: string; components: unknown[] }>(
      "/api/flex/v1/admin/sendWhatsapp?pageSize=100",
      owner.token,
    );
    expect(res.status).toBe(200);
    expect(res.body.Items.find((t) => t.name === name)).toMatchObject({
      language: "es_MX",
      components: [
        { type: "HEADER", format: "TEXT", text: "Hola" },
        { type: "BODY", text: "Cuerpo" },
      ],
    });
  });
});

describe("POST /api/flex/v1/admin/sendsms and sendWhatsapp", () => {
  const post = async (path: string, token: string, json: unknown, headers: Record<string, string> = {}) => {
    const res = await api(path, { method: "POST", token, json, headers });
    return {
      status: res.status,
      body: (await res.json()) as { message?: string; campaignId?: number; error?: { code: string; message: string; details?: unknown } },
    };
  };

  it("creates a list campaign from the old payload and answers the message", async () => {
    const { token } = await signInAs("support");
    const [a, b] = [uniquePhone(), uniquePhone()];
    const numbers = [{ number: a }, { number: b.slice(2) }, { number: a }];
    const res = await post("/api/flex/v1/admin/sendsms", token, { numbers, message: "Old tools page", purpose: "service" });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe("Message sent successfully to 2 users.");
    const campaign = await env.DB.prepare("SELECT source, channel, message, total, category FROM campaigns WHERE id = ?").bind(res.body.campaignId).first();
    expect(campaign).toEqual({ source: "list", channel: "sms", message: "Old tools page", total: 2, category: "transactional" });
  });

  it("treats an unclassified old call as marketing: consent needed, opt-out line added", async () => {
    const { token } = await signInAs("support");
    const [consented, stranger] = [uniquePhone(), uniquePhone()];
    const refused = await post("/api/flex/v1/admin/sendsms", token, { numbers: [{ number: stranger }], message: "Promo" });
    expect(refused.status).toBe(422);
    await recordConsent(createDb(env.DB), { phone: consented, basis: "express", source: "registration", text: REGISTRATION_CONSENT, language: "en" });
    const res = await post("/api/flex/v1/admin/sendsms", token, { numbers: [{ number: consented }, { number: stranger }], message: "Promo" });
    expect(res.status).toBe(200);
    const campaign = await env.DB.prepare("SELECT message, category, skipped FROM campaigns WHERE id = ?").bind(res.body.campaignId).first();
    expect(campaign).toEqual({ message: "Promo\nReply STOP to opt out", category: "marketing", skipped: 1 });
  });

  it("replays with the Idempotency-Key header, and checks numbers and length like the campaign call", async () => {
    const { token } = await signInAs("support");
    const key = uniqueTag("legacy");
    const body = { numbers: [{ number: uniquePhone() }], message: "Once", purpose: "service" };
    const first = await post("/api/flex/v1/admin/sendsms", token, body, { "Idempotency-Key": key });
    const second = await post("/api/flex/v1/admin/sendsms", token, body, { "Idempotency-Key": key });
    expect(second.body.campaignId).toBe(first.body.campaignId);
    const bad = await post("/api/flex/v1/admin/sendsms", token, { numbers: [{ number: "123" }, { number: 3055550100 }], message: "x" });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.details).toEqual([{ path: "phones.0", message: "Enter a US or Canada phone number", value: "123", reason: "format" }]);
    expect(
      (await post("/api/flex/v1/admin/sendsms", token, { numbers: [{ number: uniquePhone() }], message: "y".repeat(161), purpose: "service" })).status,
    ).toBe(422);
    expect((await post("/api/flex/v1/admin/sendsms", token, { numbers: [], message: "x" })).status).toBe(400);
    expect((await post("/api/flex/v1/admin/sendsms", token, { message: "x" })).status).toBe(400);
  });

  it("sends a template named as the old client did (admins with billingDetails: the template list is theirs)", async () => {
    const { token } = await signInAs("billing");
    const name = uniqueTag("legacy_send");
    await env.DB.prepare(
      "INSERT INTO whatsapp_templates (id, name, language, status, category, components) VALUES (?, ?, 'en_US', 'APPROVED', 'UTILITY', '[]')",
    )
      .bind(uniqueTag("id"), name)
      .run();
    const ok = await post("/api/flex/v1/admin/sendWhatsapp", token, {
      numbers: [{ number: uniquePhone() }],
      msgTemplate: { name, language: "en_US", components: [{ type: "BODY", text: "whatever the list said" }] },
      purpose: "service",
    });
    expect(ok.status).toBe(200);
    expect(ok.body.message).toBe("Message sent successfully to 1 user.");
    const metaShape = await post("/api/flex/v1/admin/sendWhatsapp", token, {
      numbers: [{ number: uniquePhone() }],
      msgTemplate: { name, language: { code: "en_US" } },
      purpose: "service",
    });
    expect(metaShape.status).toBe(200);
    const missing = await post("/api/flex/v1/admin/sendWhatsapp", token, {
      numbers: [{ number: uniquePhone() }],
      msgTemplate: { name: "nope", language: "en_US" },
      purpose: "service",
    });
    expect(missing.status).toBe(422);
  });
});
