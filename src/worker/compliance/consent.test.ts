import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { REGISTRATION_CONSENT } from "../../shared/consent-texts";
import { createDb } from "../db/client";
import { createUser, uniquePhone } from "../test/fixtures";
import { consentHistory, consentState, marketingAllowedAmong, recordConsent, recordOptIn, recordOptOut } from "./consent";

const db = () => createDb(env.DB);

describe("consent ledger", () => {
  it("records registration consent with the exact text and version, which allows marketing", async () => {
    const phone = uniquePhone();
    await recordConsent(db(), { phone, basis: "express", source: "registration", text: REGISTRATION_CONSENT, language: "es", at: 1_000 });
    const history = await consentHistory(db(), phone, 1, 20);
    expect(history.total).toBe(1);
    expect(history.rows[0]).toMatchObject({
      kind: "consent",
      channel: "all",
      basis: "express",
      source: "registration",
      text: REGISTRATION_CONSENT.es,
      textVersion: REGISTRATION_CONSENT.version,
      language: "es",
      at: 1_000,
    });
    expect(await consentState(db(), phone)).toEqual({
      phone,
      optedOut: { sms: false, whatsapp: false },
      basis: "express",
      marketingAllowed: { sms: true, whatsapp: true },
    });
  });

  it("marks an invitation as a weaker basis that does not allow marketing", async () => {
    const phone = uniquePhone();
    await recordConsent(db(), { phone, basis: "invitation", source: "invitation", text: null, language: "en", actorId: 7 });
    const state = await consentState(db(), phone);
    expect(state.basis).toBe("invitation");
    expect(state.marketingAllowed).toEqual({ sms: false, whatsapp: false });
    expect([...(await marketingAllowedAmong(db(), [phone], "sms"))]).toEqual([]);
  });

  it("honours an opt-out on every channel at once, once, and keeps the message that caused it", async () => {
    const user = await createUser();
    await recordConsent(db(), { phone: user.phone, basis: "express", source: "registration", text: REGISTRATION_CONSENT, language: "en" });
    const first = await recordOptOut(db(), { phone: user.phone, message: "no más mensajes", messageId: "SM1", via: "sms", language: "es" });
    expect(first.changed).toBe(true);
    const state = await consentState(db(), user.phone);
    expect(state.optedOut).toEqual({ sms: true, whatsapp: true });
    expect(state.marketingAllowed).toEqual({ sms: false, whatsapp: false });
    const flags = await env.DB.prepare("SELECT sms_opt_out, whatsapp_opt_out FROM users WHERE id = ?").bind(user.id).first();
    expect(flags).toEqual({ sms_opt_out: 1, whatsapp_opt_out: 1 });

    // The same webhook delivered again, and a second STOP: nothing changes, so nobody confirms twice.
    expect((await recordOptOut(db(), { phone: user.phone, message: "no más mensajes", messageId: "SM1", via: "sms", language: "es" })).changed).toBe(false);
    expect((await recordOptOut(db(), { phone: user.phone, message: "STOP", messageId: "SM2", via: "whatsapp", language: null })).changed).toBe(false);
    const history = await consentHistory(db(), user.phone, 1, 20);
    expect(history.rows.map((r) => [r.kind, r.source, r.text])).toEqual([
      ["opt_out", "inbound_whatsapp", "STOP"],
      ["opt_out", "inbound_sms", "no más mensajes"],
      ["consent", "registration", REGISTRATION_CONSENT.en],
    ]);
  });

  it("opts back in on the channel the START came on only", async () => {
    const phone = uniquePhone();
    await recordConsent(db(), { phone, basis: "express", source: "contact_form", text: REGISTRATION_CONSENT, language: "en" });
    await recordOptOut(db(), { phone, message: "STOP", messageId: null, via: "sms", language: null });
    expect((await recordOptIn(db(), { phone, message: "START", messageId: "SM3", via: "sms", language: null })).changed).toBe(true);
    expect((await recordOptIn(db(), { phone, message: "START", messageId: "SM3", via: "sms", language: null })).changed).toBe(false);
    const state = await consentState(db(), phone);
    expect(state.optedOut).toEqual({ sms: false, whatsapp: true });
    expect(state.marketingAllowed).toEqual({ sms: true, whatsapp: false });
    expect([...(await marketingAllowedAmong(db(), [phone], "sms"))]).toEqual([phone]);
  });

  it("pages the history, newest first", async () => {
    const phone = uniquePhone();
    for (let i = 0; i < 5; i++) await recordOptOut(db(), { phone, message: `STOP ${i}`, messageId: null, via: "sms", language: null, at: 1_000 + i });
    const page = await consentHistory(db(), phone, 2, 2);
    expect(page.total).toBe(5);
    expect(page.rows.map((r) => r.text)).toEqual(["STOP 2", "STOP 1"]);
  });
});
