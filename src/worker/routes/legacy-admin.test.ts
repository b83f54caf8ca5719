import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { REGISTRATION_CONSENT } from "../../shared/consent-texts";
import { recordConsent } from "../compliance/consent";
import { createDb } from "../db/client";
import { api, createUser, invite, signInAs, uniquePhone, uniqueTag } from "../test/fixtures";

type Items<T> = { Items: T[]; Count: number; LastEvaluatedKey?: Record<string, unknown>; error?: { code: string; message: string; details?: unknown } };
const getJson = async <T>(path: string, token: string) => {
  const res = await api(path, { token });
  return { status: res.status, body: (await res.json()) as Items<T> };
};

/** Every item of an old list call, following LastEvaluatedKey as an old DynamoDB client does; and the pages' sizes. */
async function followAll<T>(path: string, token: string) {
  const items: T[] = [];
  const counts: number[] = [];
  let key: Record<string, unknown> | undefined;
  for (let request = 0; request < 1000; request++) {
    const sep = path.includes("?") ? "&" : "?";
    const res = await getJson<T>(key ? `${path}${sep}ExclusiveStartKey=${encodeURIComponent(JSON.stringify(key))}` : path, token);
    expect(res.status).toBe(200);
    expect(res.body.Count).toBe(res.body.Items.length);
    items.push(...res.body.Items);
    counts.push(res.body.Count);
    key = res.body.LastEvaluatedKey;
    if (!key) break;
  }
  return { items, counts };
}

describe("the old list calls answer every row through DynamoDB's continuation", () => {
  it("all-users-table: a bounded first page, then LastEvaluatedKey until every user is read once", async () => {
    const { token } = await signInAs("support");
    const region = uniqueTag("Paged");
    const made: number[] = [];
    for (let i = 0; i < 5; i++) made.push((await createUser({ humanRegion: region })).id);
    const first = await getJson<{ id: number }>(`/api/flex/v1/all-users-table?region=${region}&Limit=2`, token);
    expect(first.body.Count).toBe(2);
    expect(first.body.LastEvaluatedKey).toEqual({ id: first.body.Items[1]!.id });
    const all = await followAll<{ id: number }>(`/api/flex/v1/all-users-table?region=${region}&Limit=2`, token);
    expect(all.counts).toEqual([2, 2, 1]);
    expect(all.items.map((u) => u.id)).toEqual(made.sort((a, b) => a - b));
    // Without Limit a page is at most 100 rows, and a larger Limit or a key that is not one is refused.
    const whole = await getJson(`/api/flex/v1/all-users-table?region=${region}`, token);
    expect(whole.body).toMatchObject({ Count: 5 });
    expect(whole.body.LastEvaluatedKey).toBeUndefined();
    expect((await getJson("/api/flex/v1/all-users-table", token)).body.Count).toBeLessThanOrEqual(100);
    expect((await getJson("/api/flex/v1/all-users-table?Limit=101", token)).status).toBe(400);
    const bad = await getJson("/api/flex/v1/all-users-table?ExclusiveStartKey=not-json", token);
    expect(bad.status).toBe(400);
    expect(bad.body.error?.code).toBe("validation_failed");
    expect((await getJson(`/api/flex/v1/all-users-table?ExclusiveStartKey=${encodeURIComponent('{"id":"x"}')}`, token)).status).toBe(400);
  });

  it("invitations, referrals and templates: every row once, newest invitation first", async () => {
    const support = await signInAs("support");
    const latest = await env.DB.prepare("SELECT max(invited_at) AS at FROM invitations").first<{ at: number | null }>();
    const at = Math.max(Date.now(), latest?.at ?? 0) + 20_000_000;
    const phones = [uniquePhone(), uniquePhone(), uniquePhone()];
    // Two at the same instant: the continuation tells them apart by id.
    await invite(phones[0]!, { invitedAt: at });
    await invite(phones[1]!, { invitedAt: at });
    await invite(phones[2]!, { invitedAt: at - 1 });
    const firstTwo = await getJson<{ phoneNumber: string }>("/api/flex/v1/admin/invitations?Limit=2", support.token);
    expect(firstTwo.body.Items.map((i) => i.phoneNumber).sort()).toEqual([phones[0], phones[1]].sort());
    // Other files' work may still be writing in the background (the worker tests share one
    // database), so the check is: every invitation there before and after the walk was seen once.
    const invitationKeys = async () =>
      (await env.DB.prepare("SELECT phone, invited_at AS at FROM invitations").all<{ phone: string; at: number }>()).results.map((r) => `${r.phone}@${r.at}`);
    const before = await invitationKeys();
    const invitationsAll = await followAll<{ phoneNumber: string; dateInvitedTimestamp: number }>("/api/flex/v1/admin/invitations?Limit=2", support.token);
    const seenKeys = invitationsAll.items.map((i) => `${i.phoneNumber}@${i.dateInvitedTimestamp}`);
    expect(new Set(seenKeys).size).toBe(seenKeys.length);
    const seen = invitationsAll.items.map((i) => i.phoneNumber);
    expect(seen.slice(0, 3).sort()).toEqual([...phones].sort());
    expect(seen[2]).toBe(phones[2]);
    const stayed = new Set(await invitationKeys());
    expect(before.filter((k) => stayed.has(k) && !seenKeys.includes(k))).toEqual([]);

    const billing = await signInAs("billing");
    const codes = [uniqueTag("PAGEA").toUpperCase(), uniqueTag("PAGEB").toUpperCase()];
    for (const code of codes) await env.DB.prepare("INSERT INTO referral_codes (code, app, owner) VALUES (?, 'flex', 'Partner')").bind(code).run();
    const referralCodes = async () => (await env.DB.prepare("SELECT code FROM referral_codes").all<{ code: string }>()).results.map((r) => r.code);
    const codesBefore = await referralCodes();
    const referrals = await followAll<{ referralCode: string }>("/api/flex/v1/admin/referrals?Limit=1", billing.token);
    expect(referrals.counts.every((n) => n <= 1)).toBe(true);
    const listed = referrals.items.map((r) => r.referralCode);
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed).toEqual(expect.arrayContaining(codes));
    const codesAfter = new Set(await referralCodes());
    expect(codesBefore.filter((c) => codesAfter.has(c) && !listed.includes(c))).toEqual([]);

    const names = [uniqueTag("paged_tpl_a"), uniqueTag("paged_tpl_b")];
    for (const name of names)
      for (const language of ["en_US", "es_MX"])
        await env.DB.prepare("INSERT INTO whatsapp_templates (id, name, language, status, components) VALUES (?, ?, ?, 'APPROVED', '[]')")
          .bind(uniqueTag("id"), name, language)
          .run();
    const templates = await followAll<{ name: string; language: string }>("/api/flex/v1/admin/sendWhatsapp?Limit=3", billing.token);
    const mine = templates.items.filter((t) => names.includes(t.name)).map((t) => `${t.name}/${t.language}`);
    expect(mine.sort()).toEqual(names.flatMap((n) => [`${n}/en_US`, `${n}/es_MX`]).sort());
  });
});

describe("GET /api/flex/v1/all-users-table and /api/spark/v1/admin/all-users-table", () => {
  it("lists the old user items of one app, administrators included", async () => {
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
    const res = await getJson<Record<string, unknown>>(`/api/flex/v1/all-users-table?region=${region}`, token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ Count: 2 });
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
    expect((await getJson(`/api/flex/v1/all-users-table?app=spark&region=${area}`, token)).body.Count).toBe(0);
  });
});

describe("GET /api/flex/v1/admin/invitations", () => {
  it("lists the raw invitations, newest first, with the old field names", async () => {
    const { token } = await signInAs("support");
    const phone = uniquePhone();
    // Later than any invitation other files made in the shared database, so it is the newest.
    const latest = await env.DB.prepare("SELECT max(invited_at) AS at FROM invitations").first<{ at: number | null }>();
    const at = Math.max(Date.now(), latest?.at ?? 0) + 10_000_000;
    await invite(phone, { invitedAt: at, freeWeek: true });
    const res = await getJson<{ phoneNumber: string; dateInvitedTimestamp: number; freeWeek: boolean }>("/api/flex/v1/admin/invitations?Limit=20", token);
    expect(res.status).toBe(200);
    expect(res.body.Items[0]).toEqual({ phoneNumber: phone, dateInvitedTimestamp: at, freeWeek: true });
    expect(res.body.Count).toBeGreaterThanOrEqual(1);
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
    const all = await followAll<{ referralCode: string }>("/api/flex/v1/admin/referrals", billing.token);
    expect(all.items.map((i) => i.referralCode)).toContain(code);
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
    const res = await followAll<{ id: string; name: string; language: string; components: unknown[] }>("/api/flex/v1/admin/sendWhatsapp", owner.token);
    expect(res.items.find((t) => t.name === name)).toMatchObject({
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

  it("honours the template's components: header and body parameters fill its placeholders", async () => {
    const { token } = await signInAs("billing");
    const name = uniqueTag("legacy_params");
    await env.DB.prepare("INSERT INTO whatsapp_templates (id, name, language, status, category, components) VALUES (?, ?, 'es_MX', 'APPROVED', 'UTILITY', ?)")
      .bind(
        uniqueTag("id"),
        name,
        JSON.stringify([
          { type: "HEADER", format: "TEXT", text: "Hola {{1}}" },
          { type: "BODY", text: "Tu servicio vence el {{1}} a las {{2}}." },
        ]),
      )
      .run();
    const phone = uniquePhone();
    const send = (components: unknown) =>
      post("/api/flex/v1/admin/sendWhatsapp", token, {
        numbers: [{ number: phone }],
        msgTemplate: { name, language: "es_MX", components },
        purpose: "service",
      });
    const text = (value: string) => ({ type: "text", text: value });
    // Too few values for the body: refused, saying how many it takes; a button parameter is not one we send.
    const short = await send([
      { type: "HEADER", parameters: [text("Ana")] },
      { type: "BODY", parameters: [text("12/03/26")] },
    ]);
    expect(short.status).toBe(422);
    expect(short.body.error?.details).toMatchObject({ reason: "template_parameters", part: "body", expected: 2, given: 1 });
    expect((await send([{ type: "button", parameters: [text("x")] }])).status).toBe(400);
    const ok = await send([
      { type: "HEADER", parameters: [text("Ana")] },
      { type: "BODY", parameters: [text("12/03/26"), text("18:00")] },
    ]);
    expect(ok.status).toBe(200);
    const stored = await env.DB.prepare("SELECT template FROM campaigns WHERE id = ?").bind(ok.body.campaignId).first<{ template: string }>();
    expect(JSON.parse(stored!.template)).toMatchObject({ components: [{ type: "header" }, { type: "body" }] });
    // The send (the outbox provider here) fills the placeholders with them.
    let sent: { body: string } | null = null;
    for (let tries = 0; tries < 150 && !sent; tries++) {
      sent = await env.DB.prepare('SELECT body FROM outbox WHERE "to" = ?').bind(phone).first<{ body: string }>();
      if (!sent) await new Promise((r) => setTimeout(r, 100));
    }
    expect(sent).toEqual({ body: "Hola Ana\n\nTu servicio vence el 12/03/26 a las 18:00." });
  });
});
