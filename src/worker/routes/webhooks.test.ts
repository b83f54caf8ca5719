import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { twilioSignature, verifyMetaSignature, verifyTwilioSignature } from "../providers/webhook-signatures";
import { api, createUser, uniquePhone, uniqueTag } from "../test/fixtures";

const TOKEN = "test-twilio-token";
const APP_SECRET = "test-whatsapp-secret";

/** Twilio's documented example (twilio.com/docs/usage/security), computed independently of our code. */
const DOC = {
  token: "12345",
  url: "https://mycompany.com/myapp.php?foo=1&bar=2",
  params: new URLSearchParams({ CallSid: "CA1234567890ABCDE", Caller: "+12349013030", Digits: "1234", From: "+12349013030", To: "+18005551212" }),
  signature: "0/KCTR6DLpKmkAf8muzZqo1nDgQ=",
};

async function hubSignature(secret: string, body: string) {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body));
  return `sha256=${[...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

async function twilioPost(path: string, params: Record<string, string>, signature?: string | null) {
  const url = `https://bp.test${path}`;
  const form = new URLSearchParams(params);
  const sig = signature === undefined ? await twilioSignature(TOKEN, url, form) : signature;
  return api(path, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...(sig ? { "X-Twilio-Signature": sig } : {}) },
    body: form.toString(),
  });
}

async function metaPost(payload: unknown, signature?: string | null) {
  const body = typeof payload === "string" ? payload : JSON.stringify(payload);
  const sig = signature === undefined ? await hubSignature(APP_SECRET, body) : signature;
  return api("/api/webhooks/whatsapp", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(sig ? { "X-Hub-Signature-256": sig } : {}) },
    body,
  });
}

/** A sent campaign row with a provider id, to receive receipts for. */
async function sentRow(providerId: string, channel: "sms" | "whatsapp" = "sms") {
  const author = await createUser({ isAdmin: true, roleName: "owner" });
  const campaign = await env.DB.prepare(
    "INSERT INTO campaigns (app, channel, source, message, audience, author_id, idempotency_key, status) VALUES ('flex', ?, 'list', 'x', '{}', ?, ?, 'done') RETURNING id",
  )
    .bind(channel, author.id, uniqueTag("k"))
    .first<{ id: number }>();
  const row = await env.DB.prepare("INSERT INTO campaign_messages (campaign_id, phone, status, provider_id, attempts) VALUES (?, ?, 'sent', ?, 1) RETURNING id")
    .bind(campaign!.id, uniquePhone(), providerId)
    .first<{ id: number }>();
  return row!.id;
}
/** A row whose send got no answer: claimed ('sending') and waiting for its callback. */
async function sendingRow(channel: "sms" | "whatsapp") {
  const id = await sentRow(`${channel === "sms" ? "SM" : "wamid."}${uniqueTag("x")}`, channel);
  await env.DB.prepare("UPDATE campaign_messages SET status = 'sending', provider_id = NULL, held_until = ? WHERE id = ?")
    .bind(Date.now() + 30_000, id)
    .run();
  return id;
}

const PHONE_NUMBER_ID = "100000000000000";
const nowSeconds = () => String(Math.floor(Date.now() / 1000));

const rowOf = (id: number) =>
  env.DB.prepare("SELECT status, error_code, error_message FROM campaign_messages WHERE id = ?")
    .bind(id)
    .first<{ status: string; error_code: string | null; error_message: string | null }>();
const optOutOf = (phone: string, channel: string) =>
  env.DB.prepare("SELECT keyword FROM opt_outs WHERE phone = ? AND channel = ?").bind(phone, channel).first<{ keyword: string }>();

describe("Twilio signatures", () => {
  it("matches Twilio's documented example", async () => {
    expect(await twilioSignature(DOC.token, DOC.url, DOC.params)).toBe(DOC.signature);
    expect(await verifyTwilioSignature(DOC.token, DOC.url, DOC.params, DOC.signature)).toBe(true);
  });

  it("refuses a changed URL, parameter, token or signature, and garbage", async () => {
    const changed = new URLSearchParams(DOC.params);
    changed.set("Digits", "1235");
    expect(await verifyTwilioSignature(DOC.token, DOC.url, changed, DOC.signature)).toBe(false);
    expect(await verifyTwilioSignature(DOC.token, DOC.url.replace("foo=1", "foo=2"), DOC.params, DOC.signature)).toBe(false);
    expect(await verifyTwilioSignature("54321", DOC.url, DOC.params, DOC.signature)).toBe(false);
    expect(await verifyTwilioSignature(DOC.token, DOC.url, DOC.params, "0/KCTR6DLpKmkAf8muzZqo1nDgQ")).toBe(false);
    expect(await verifyTwilioSignature(DOC.token, DOC.url, DOC.params, "not base64 at all!")).toBe(false);
    expect(await verifyTwilioSignature(DOC.token, DOC.url, DOC.params, "")).toBe(false);
    expect(await verifyTwilioSignature("", DOC.url, DOC.params, DOC.signature)).toBe(false);
  });
});

describe("Meta signatures", () => {
  it("checks the hex HMAC-SHA256 of the raw body", async () => {
    const body = '{"object":"whatsapp_business_account"}';
    const bytes = new TextEncoder().encode(body).buffer as ArrayBuffer;
    const good = await hubSignature(APP_SECRET, body);
    expect(await verifyMetaSignature(APP_SECRET, bytes, good)).toBe(true);
    expect(await verifyMetaSignature(APP_SECRET, bytes, good.toUpperCase().replace("SHA256=", "sha256="))).toBe(true);
    expect(await verifyMetaSignature(APP_SECRET, new TextEncoder().encode(`${body} `).buffer as ArrayBuffer, good)).toBe(false);
    expect(await verifyMetaSignature("other", bytes, good)).toBe(false);
    expect(await verifyMetaSignature(APP_SECRET, bytes, good.replace("sha256=", "sha1="))).toBe(false);
    expect(await verifyMetaSignature(APP_SECRET, bytes, "sha256=zz")).toBe(false);
    expect(await verifyMetaSignature(APP_SECRET, bytes, null)).toBe(false);
  });
});

describe("POST /api/webhooks/twilio/status", () => {
  it("moves a sent row to delivered, or to failed with Twilio's ErrorCode", async () => {
    const delivered = await sentRow(`SMdelivered${uniqueTag("")}`);
    const failed = await sentRow(`SMfailed${uniqueTag("")}`);
    const deliveredSid = (await env.DB.prepare("SELECT provider_id FROM campaign_messages WHERE id = ?").bind(delivered).first<{ provider_id: string }>())!
      .provider_id;
    const failedSid = (await env.DB.prepare("SELECT provider_id FROM campaign_messages WHERE id = ?").bind(failed).first<{ provider_id: string }>())!
      .provider_id;
    expect((await twilioPost("/api/webhooks/twilio/status", { MessageSid: deliveredSid, MessageStatus: "delivered" })).status).toBe(204);
    expect((await twilioPost("/api/webhooks/twilio/status", { MessageSid: failedSid, MessageStatus: "undelivered", ErrorCode: "30003" })).status).toBe(204);
    expect(await rowOf(delivered)).toMatchObject({ status: "delivered", error_code: null });
    expect(await rowOf(failed)).toMatchObject({ status: "failed", error_code: "30003", error_message: "Twilio reported the message undelivered" });
    // A late "sent" or a repeated receipt changes nothing; a delivered row does not turn failed.
    await twilioPost("/api/webhooks/twilio/status", { MessageSid: deliveredSid, MessageStatus: "sent" });
    await twilioPost("/api/webhooks/twilio/status", { MessageSid: deliveredSid, MessageStatus: "failed", ErrorCode: "30008" });
    expect(await rowOf(delivered)).toMatchObject({ status: "delivered" });
  });

  it("answers 401 without a signature and 403 with a wrong one, writing nothing", async () => {
    const id = await sentRow(`SM${uniqueTag("")}`);
    const sid = (await env.DB.prepare("SELECT provider_id FROM campaign_messages WHERE id = ?").bind(id).first<{ provider_id: string }>())!.provider_id;
    const missing = await twilioPost("/api/webhooks/twilio/status", { MessageSid: sid, MessageStatus: "delivered" }, null);
    expect(missing.status).toBe(401);
    const wrong = await twilioPost("/api/webhooks/twilio/status", { MessageSid: sid, MessageStatus: "delivered" }, DOC.signature);
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toEqual({ error: { code: "forbidden", message: "Invalid X-Twilio-Signature" } });
    // Signed for other parameters than the ones sent.
    const signedFor = await twilioSignature(
      TOKEN,
      "https://bp.test/api/webhooks/twilio/status",
      new URLSearchParams({ MessageSid: sid, MessageStatus: "sent" }),
    );
    expect((await twilioPost("/api/webhooks/twilio/status", { MessageSid: sid, MessageStatus: "delivered" }, signedFor)).status).toBe(403);
    expect(await rowOf(id)).toMatchObject({ status: "sent" });
  });

  it("keeps a receipt for a send not recorded yet, for the consumer to apply", async () => {
    const sid = `SM${uniqueTag("ahead")}`;
    expect((await twilioPost("/api/webhooks/twilio/status", { MessageSid: sid, MessageStatus: "undelivered", ErrorCode: "30005" })).status).toBe(204);
    expect(await env.DB.prepare("SELECT status, error_code FROM delivery_receipts WHERE provider_id = ?").bind(sid).first()).toEqual({
      status: "failed",
      error_code: "30005",
    });
    // A later "delivered" for the same id does not overwrite a failure.
    await twilioPost("/api/webhooks/twilio/status", { MessageSid: sid, MessageStatus: "delivered" });
    expect(await env.DB.prepare("SELECT status FROM delivery_receipts WHERE provider_id = ?").bind(sid).first()).toEqual({ status: "failed" });
  });

  it("settles a send whose answer was lost from a callback whose URL names its row", async () => {
    const id = await sendingRow("sms");
    const sid = `SM${uniqueTag("lost")}`;
    // Signed over the URL with its ?m=: the row id cannot be forged.
    expect((await twilioPost(`/api/webhooks/twilio/status?m=${id}`, { MessageSid: sid, MessageStatus: "sent" })).status).toBe(204);
    expect(await env.DB.prepare("SELECT status, provider_id, held_until FROM campaign_messages WHERE id = ?").bind(id).first()).toEqual({
      status: "sent",
      provider_id: sid,
      held_until: null,
    });
    await twilioPost(`/api/webhooks/twilio/status?m=${id}`, { MessageSid: sid, MessageStatus: "delivered" });
    expect(await rowOf(id)).toMatchObject({ status: "delivered" });
    // Another send's callback naming this row (it was sent again meanwhile) does not take it over.
    await twilioPost(`/api/webhooks/twilio/status?m=${id}`, { MessageSid: `SM${uniqueTag("other")}`, MessageStatus: "failed", ErrorCode: "30003" });
    expect(await rowOf(id)).toMatchObject({ status: "delivered" });
  });

  it("accepts Twilio's signature over the URL as supplied, with its connection-override fragment, which the request itself lacks", async () => {
    const id = await sendingRow("sms");
    const sid = `SM${uniqueTag("frag")}`;
    const path = `/api/webhooks/twilio/status?m=${id}`;
    const sent = { MessageSid: sid, MessageStatus: "sent" };
    const delivered = { MessageSid: sid, MessageStatus: "delivered" };
    const signed = (fragment: string, params: Record<string, string>) =>
      twilioSignature(TOKEN, `https://bp.test${path}${fragment}`, new URLSearchParams(params));
    // Signed over another fragment than ours: refused, nothing written.
    expect((await twilioPost(path, sent, await signed("#rc=1", sent))).status).toBe(403);
    expect(await rowOf(id)).toMatchObject({ status: "sending" });
    // Signed over the StatusCallback URL we gave Twilio, fragment included.
    expect((await twilioPost(path, sent, await signed("#rc=5&rp=all", sent))).status).toBe(204);
    expect(await rowOf(id)).toMatchObject({ status: "sent" });
    // Signed over the URL as requested (no fragment): accepted too.
    expect((await twilioPost(path, delivered, await signed("", delivered))).status).toBe(204);
    expect(await rowOf(id)).toMatchObject({ status: "delivered" });
  });

  it("refuses a signed receipt without the message id with 400", async () => {
    expect((await twilioPost("/api/webhooks/twilio/status", { MessageStatus: "delivered" })).status).toBe(400);
  });
});

describe("POST /api/webhooks/twilio/inbound", () => {
  const twiml = (message?: string) => `<?xml version="1.0" encoding="UTF-8"?><Response>${message ? `<Message>${message}</Message>` : ""}</Response>`;
  const STOP_EN = "Blockpilot: you will get no more texts or WhatsApp messages from us. Reply START to receive them again.";
  const STOP_ES = "Blockpilot: no recibirás más mensajes por SMS ni WhatsApp. Responde START para volver a recibirlos.";

  it("opts out on every stop keyword, whatever the case and punctuation, on every channel, with one confirmation", async () => {
    for (const word of ["STOP", "stopall", "Unsubscribe", "cancel", "END", "quit", "revoke", "OptOut", " stop. ", "STOP!"]) {
      const user = await createUser();
      const res = await twilioPost("/api/webhooks/twilio/inbound", { From: user.phone, To: "+15005550006", Body: word, MessageSid: uniqueTag("SM") });
      expect(res.status, word).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/xml");
      expect(await res.text()).toBe(twiml(STOP_EN));
      expect((await optOutOf(user.phone, "sms"))?.keyword, word).toBe(word.replace(/[^A-Za-z]/g, "").toUpperCase());
      expect(await optOutOf(user.phone, "whatsapp"), word).not.toBeNull();
      const flags = await env.DB.prepare("SELECT sms_opt_out, whatsapp_opt_out FROM users WHERE id = ?").bind(user.id).first();
      expect(flags).toEqual({ sms_opt_out: 1, whatsapp_opt_out: 1 });
    }
  });

  it("understands Spanish and plain language, and confirms once in the sender's language", async () => {
    const cases: [string, string][] = [
      ["no más mensajes", STOP_ES],
      ["Dejen de enviarme mensajes por favor", STOP_ES],
      ["BAJA", STOP_ES],
      ["stop texting me", STOP_EN],
      ["Please remove me from your list", STOP_EN],
    ];
    for (const [body, reply] of cases) {
      const phone = uniquePhone();
      const sid = uniqueTag("SM");
      expect(await (await twilioPost("/api/webhooks/twilio/inbound", { From: phone, Body: body, MessageSid: sid })).text(), body).toBe(twiml(reply));
      expect(await optOutOf(phone, "sms"), body).not.toBeNull();
      expect(await optOutOf(phone, "whatsapp"), body).not.toBeNull();
      // Twilio retrying the same webhook, and a second request to stop: no second confirmation.
      expect(await (await twilioPost("/api/webhooks/twilio/inbound", { From: phone, Body: body, MessageSid: sid })).text()).toBe(twiml());
      expect(await (await twilioPost("/api/webhooks/twilio/inbound", { From: phone, Body: "STOP", MessageSid: uniqueTag("SM") })).text()).toBe(twiml());
      const ledger = await env.DB.prepare("SELECT count(*) AS n FROM consent_events WHERE phone = ? AND kind = 'opt_out'").bind(phone).first();
      expect(ledger).toEqual({ n: 2 });
    }
  });

  it("answers a bare STOP in the account's language", async () => {
    const user = await createUser();
    await env.DB.prepare("UPDATE users SET language = 'es' WHERE id = ?").bind(user.id).run();
    expect(await (await twilioPost("/api/webhooks/twilio/inbound", { From: user.phone, Body: "STOP", MessageSid: uniqueTag("SM") })).text()).toBe(
      twiml(STOP_ES),
    );
  });

  it("opts back in on START or UNSTOP, on SMS only, also numbers without an account", async () => {
    for (const word of ["START", "unstop"]) {
      const phone = uniquePhone();
      await twilioPost("/api/webhooks/twilio/inbound", { From: phone, Body: "STOP" });
      expect(await optOutOf(phone, "sms")).not.toBeNull();
      const res = await twilioPost("/api/webhooks/twilio/inbound", { From: phone, Body: word });
      expect(await res.text()).toBe(twiml("Blockpilot: you will receive our messages again. Reply STOP to opt out."));
      expect(await optOutOf(phone, "sms")).toBeNull();
      expect(await optOutOf(phone, "whatsapp")).not.toBeNull();
    }
  });

  it("refuses a replayed message: a captured START sent again after a later STOP changes nothing", async () => {
    const phone = uniquePhone();
    const start = { From: phone, Body: "START", MessageSid: uniqueTag("SMstart") };
    await twilioPost("/api/webhooks/twilio/inbound", { From: phone, Body: "STOP", MessageSid: uniqueTag("SM") });
    await twilioPost("/api/webhooks/twilio/inbound", start);
    expect(await optOutOf(phone, "sms")).toBeNull();
    await twilioPost("/api/webhooks/twilio/inbound", { From: phone, Body: "STOP", MessageSid: uniqueTag("SM") });
    // The START again, signature and all: same MessageSid, so it is refused.
    expect((await twilioPost("/api/webhooks/twilio/inbound", start)).status).toBe(200);
    expect(await optOutOf(phone, "sms")).not.toBeNull();
  });

  it("answers HELP (and AYUDA) with the program, support hours, contact and how to opt out, and ignores other messages", async () => {
    const help = await twilioPost("/api/webhooks/twilio/inbound", { From: uniquePhone(), Body: "help" });
    expect(await help.text()).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?><Response><Message>Blockpilot \(block alerts for delivery drivers\): help at .*\/contact, 7 am to 10 pm EST\. Msg &amp; data rates may apply\. Reply STOP to opt out\.<\/Message><\/Response>$/,
    );
    const ayuda = await twilioPost("/api/webhooks/twilio/inbound", { From: uniquePhone(), Body: "AYUDA" });
    expect(await ayuda.text()).toMatch(
      /<Message>Blockpilot \(alertas de bloques para conductores\): ayuda en .*\/contact, de 7 am a 10 pm EST\..*Responde STOP para no recibir más\.<\/Message>/,
    );
    const phone = uniquePhone();
    const chat = await twilioPost("/api/webhooks/twilio/inbound", { From: phone, Body: "please don't stop sending" });
    expect(await chat.text()).toBe(twiml());
    expect(await optOutOf(phone, "sms")).toBeNull();
  });

  it("acts on nothing without a valid signature", async () => {
    const phone = uniquePhone();
    expect((await twilioPost("/api/webhooks/twilio/inbound", { From: phone, Body: "STOP" }, null)).status).toBe(401);
    expect((await twilioPost("/api/webhooks/twilio/inbound", { From: phone, Body: "STOP" }, "AAAA")).status).toBe(403);
    expect(await optOutOf(phone, "sms")).toBeNull();
  });
});

describe("/api/webhooks/whatsapp", () => {
  it("echoes the challenge to Meta's subscription check with our verify token only", async () => {
    const ok = await api("/api/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=test-verify-token&hub.challenge=1158201444");
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe("1158201444");
    expect((await api("/api/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1")).status).toBe(403);
    expect((await api("/api/webhooks/whatsapp?hub.mode=unsubscribe&hub.verify_token=test-verify-token&hub.challenge=1")).status).toBe(403);
    expect((await api("/api/webhooks/whatsapp?hub.mode=subscribe&hub.challenge=1")).status).toBe(403);
  });

  it("records statuses and keywords from a signed payload", async () => {
    const delivered = await sentRow(`wamid.${uniqueTag("d")}`, "whatsapp");
    const failed = await sentRow(`wamid.${uniqueTag("f")}`, "whatsapp");
    const ids = await Promise.all(
      [delivered, failed].map(
        async (id) => (await env.DB.prepare("SELECT provider_id FROM campaign_messages WHERE id = ?").bind(id).first<{ provider_id: string }>())!.provider_id,
      ),
    );
    const stopper = await createUser();
    const helpAsker = uniquePhone();
    const res = await metaPost({
      object: "whatsapp_business_account",
      entry: [
        {
          id: "200000000000000",
          changes: [
            {
              field: "messages",
              value: {
                messaging_product: "whatsapp",
                metadata: { phone_number_id: PHONE_NUMBER_ID },
                statuses: [
                  { id: ids[0], status: "delivered", recipient_id: "13055550100" },
                  { id: ids[1], status: "failed", errors: [{ code: 131026, title: "Message undeliverable" }] },
                ],
                messages: [
                  { from: stopper.phone.slice(1), type: "text", text: { body: "Stop" } },
                  { from: helpAsker.slice(1), type: "text", text: { body: "HELP" } },
                ],
              },
            },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(await rowOf(delivered)).toMatchObject({ status: "delivered" });
    expect(await rowOf(failed)).toMatchObject({ status: "failed", error_code: "131026", error_message: "Message undeliverable" });
    expect(await optOutOf(stopper.phone, "whatsapp")).toMatchObject({ keyword: "STOP" });
    // A revocation on WhatsApp is honoured on SMS too, and confirmed once, on WhatsApp.
    expect(await env.DB.prepare("SELECT whatsapp_opt_out, sms_opt_out FROM users WHERE id = ?").bind(stopper.id).first()).toEqual({
      whatsapp_opt_out: 1,
      sms_opt_out: 1,
    });
    const confirmations = await env.DB.prepare('SELECT channel, body FROM outbox WHERE "to" = ?').bind(stopper.phone).all<{ channel: string; body: string }>();
    expect(confirmations.results).toEqual([{ channel: "whatsapp", body: expect.stringContaining("no more texts or WhatsApp messages") }]);
    const reply = await env.DB.prepare('SELECT channel, body FROM outbox WHERE "to" = ?').bind(helpAsker).first<{ channel: string; body: string }>();
    expect(reply?.channel).toBe("whatsapp");
    expect(reply?.body).toContain("Reply STOP to opt out");
  });

  it("ignores events about another business number (a shared app), and a START older than the STOP applied", async () => {
    const phone = uniquePhone();
    const keyword = (body: string, at: number, phoneNumberId = PHONE_NUMBER_ID) =>
      metaPost({
        entry: [
          {
            changes: [
              {
                value: {
                  metadata: { phone_number_id: phoneNumberId },
                  messages: [{ id: uniqueTag("wamid.in"), from: phone.slice(1), timestamp: String(at), type: "text", text: { body } }],
                },
              },
            ],
          },
        ],
      });
    expect((await keyword("STOP", Number(nowSeconds()), "999999999999999")).status).toBe(200);
    expect(await optOutOf(phone, "whatsapp")).toBeNull();
    await keyword("STOP", Number(nowSeconds()));
    expect(await optOutOf(phone, "whatsapp")).not.toBeNull();
    // Sent a minute before the STOP, arriving after it: the STOP stands.
    await keyword("START", Number(nowSeconds()) - 60);
    expect(await optOutOf(phone, "whatsapp")).not.toBeNull();
  });

  it("settles a send whose answer was lost from a status naming its row (biz_opaque_callback_data)", async () => {
    const id = await sendingRow("whatsapp");
    const wamid = uniqueTag("wamid.");
    const status = (phoneNumberId: string) =>
      metaPost({
        entry: [
          {
            changes: [
              {
                value: { metadata: { phone_number_id: phoneNumberId }, statuses: [{ id: wamid, status: "sent", biz_opaque_callback_data: `m:${id}` }] },
              },
            ],
          },
        ],
      });
    await status("999999999999999");
    expect(await rowOf(id)).toMatchObject({ status: "sending" });
    await status(PHONE_NUMBER_ID);
    expect(await env.DB.prepare("SELECT status, provider_id, held_until FROM campaign_messages WHERE id = ?").bind(id).first()).toEqual({
      status: "sent",
      provider_id: wamid,
      held_until: null,
    });
  });

  it("answers 401/403 to unsigned or wrongly signed payloads, writing nothing, and 400 to signed garbage", async () => {
    const phone = uniquePhone();
    const payload = { entry: [{ changes: [{ value: { messages: [{ from: phone.slice(1), type: "text", text: { body: "STOP" } }] } }] }] };
    expect((await metaPost(payload, null)).status).toBe(401);
    expect((await metaPost(payload, await hubSignature("wrong-secret", JSON.stringify(payload)))).status).toBe(403);
    expect((await metaPost(payload, `sha256=${"0".repeat(64)}`)).status).toBe(403);
    expect(await optOutOf(phone, "whatsapp")).toBeNull();
    expect((await metaPost("{not json")).status).toBe(400);
  });
});
