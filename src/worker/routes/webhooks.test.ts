import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { twilioSignature, verifyMetaSignature, verifyTwilioSignature } from "../providers/webhook-signatures";
import { uniqueTag } from "../test/fixtures";
import { APP_SECRET, hubSignature, rowOf, sendingRow, sentRow, TOKEN, twilioPost } from "../test/webhook-requests";

/** Twilio's documented example (twilio.com/docs/usage/security), computed independently of our code. */
const DOC = {
  token: "12345",
  url: "https://mycompany.com/myapp.php?foo=1&bar=2",
  params: new URLSearchParams({ CallSid: "CA1234567890ABCDE", Caller: "+12349013030", Digits: "1234", From: "+12349013030", To: "+18005551212" }),
  signature: "0/KCTR6DLpKmkAf8muzZqo1nDgQ=",
};

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
