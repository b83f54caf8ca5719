import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createUser, uniquePhone, uniqueTag } from "../test/fixtures";
import { optOutOf, twilioPost } from "../test/webhook-requests";

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
