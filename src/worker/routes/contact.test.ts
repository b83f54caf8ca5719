import { env } from "cloudflare:test";
import { and, eq, gt } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { CONSENT_CONFIRMATION_REQUEST, CONTACT_FORM_CONSENT, REGISTRATION_CONSENT } from "../../shared/consent-texts";
import { countSms } from "../../shared/sms";
import { RATE_LIMITS, REQUESTED_SMS_BUDGET_KEY } from "../auth/rate-limit";
import { CONSENT_CONFIRMATION_RESEND_MS, consentState, marketingAllowedAmong } from "../compliance/consent";
import { createDb } from "../db/client";
import { consentEvents, leads, outbox, rateLimits } from "../db/schema";
import { exclusionsOf } from "../messaging/exclusions";
import { twilioSignature } from "../providers/webhook-signatures";
import { api, call, lastOutboxId, uniqueAddress, uniquePhone } from "../test/fixtures";

const db = createDb(env.DB);
const leadsFor = (phone: string) => db.select().from(leads).where(eq(leads.phone, phone));
const consentFor = (phone: string) => db.select().from(consentEvents).where(eq(consentEvents.phone, phone));
const ticked = { marketingConsent: { version: CONTACT_FORM_CONSENT.version } };

const message = (phoneNumber: string, extra: Record<string, unknown> = {}) => ({
  name: "Ana Ruiz",
  phoneNumber,
  email: "ana@example.com",
  message: "Do you cover the Doral station?",
  language: "es",
  ...extra,
});

describe("POST /api/contact", () => {
  it("files the message as a lead for the admins, phone in E.164", async () => {
    const phone = uniquePhone();
    const typed = `+1 (${phone.slice(2, 5)}) ${phone.slice(5, 8)}-${phone.slice(8)}`;
    const res = await call("/api/contact", { body: message(typed) });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ received: true });
    const rows = await leadsFor(phone);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      app: "flex",
      phone,
      name: "Ana Ruiz",
      email: "ana@example.com",
      source: "contact",
      message: "Do you cover the Doral station?",
      language: "es",
    });
  });

  it("takes an empty email as none and a Spark driver's app", async () => {
    const phone = uniquePhone();
    expect((await call("/api/contact", { body: message(phone, { email: "", app: "spark" }) })).status).toBe(201);
    expect((await leadsFor(phone))[0]).toMatchObject({ email: null, app: "spark" });
  });

  it("records a ticked consent box in the ledger with the lead, as unconfirmed: the exact wording shown, its version and language", async () => {
    const phone = uniquePhone();
    expect((await call("/api/contact", { body: message(phone, ticked) })).status).toBe(201);
    const [lead] = await leadsFor(phone);
    expect(await consentFor(phone)).toEqual([
      expect.objectContaining({
        kind: "consent",
        basis: "unconfirmed",
        source: "contact_form",
        channel: "all",
        text: CONTACT_FORM_CONSENT.es,
        textVersion: CONTACT_FORM_CONSENT.version,
        language: "es",
        userId: null,
        at: lead!.createdAt,
      }),
    ]);

    const english = uniquePhone();
    expect((await call("/api/contact", { body: message(english, { ...ticked, language: "en" }) })).status).toBe(201);
    expect(await consentFor(english)).toEqual([expect.objectContaining({ text: CONTACT_FORM_CONSENT.en, language: "en" })]);
  });

  it("records no consent when the box is left unticked, and refuses a wording we never showed", async () => {
    const unticked = uniquePhone();
    expect((await call("/api/contact", { body: message(unticked) })).status).toBe(201);
    expect(await leadsFor(unticked)).toHaveLength(1);
    expect(await consentFor(unticked)).toEqual([]);
    expect((await consentState(db, unticked)).basis).toBeNull();

    const stale = uniquePhone();
    for (const marketingConsent of [{ version: "made-up" }, { version: REGISTRATION_CONSENT.version }, true]) {
      const res = await call("/api/contact", { body: message(stale, { marketingConsent }) });
      expect(res.status).toBe(400);
    }
    expect(await leadsFor(stale)).toHaveLength(0);
    expect(await consentFor(stale)).toEqual([]);
  });

  it("drops a message whose honeypot is filled, answering like a success", async () => {
    const phone = uniquePhone();
    const res = await call("/api/contact", { body: message(phone, { website: "http://spam.example", ...ticked }) });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ received: true });
    expect(await leadsFor(phone)).toHaveLength(0);
    expect(await consentFor(phone)).toEqual([]);
  });

  it("refuses bad input with the field named, writing nothing", async () => {
    const phone = uniquePhone();
    for (const bad of [
      message(phone, { name: " " }),
      message(phone, { message: "" }),
      message(phone, { message: "x".repeat(2001) }),
      message(phone, { email: "not-an-email" }),
      message("+44 20 7946 0958"),
      message(phone, { app: "uber" }),
    ]) {
      const res = await call("/api/contact", { body: bad });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("validation_failed");
    }
    expect(await leadsFor(phone)).toHaveLength(0);
  });

  it("limits one address to 5 messages an hour (429 with Retry-After), writing nothing past it", async () => {
    const address = uniqueAddress();
    const phones = Array.from({ length: 6 }, () => uniquePhone());
    for (const phone of phones.slice(0, 5)) expect((await call("/api/contact", { body: message(phone), address })).status).toBe(201);
    const blocked = await call("/api/contact", { body: message(phones[5]!), address });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("Retry-After"))).toBeGreaterThan(3000);
    expect(await leadsFor(phones[5]!)).toHaveLength(0);
  });

  it("limits one phone number to 3 messages a day from any address", async () => {
    const phone = uniquePhone();
    for (let i = 0; i < 3; i++) expect((await call("/api/contact", { body: message(phone) })).status).toBe(201);
    expect((await call("/api/contact", { body: message(phone) })).status).toBe(429);
    expect(await leadsFor(phone)).toHaveLength(3);
  });
});

/** A signed inbound SMS from `phone` (the Twilio webhook), answering its TwiML reply. */
async function textFrom(phone: string, body: string, sid = `SM${crypto.randomUUID().replaceAll("-", "")}`) {
  const url = "https://bp.test/api/webhooks/twilio/inbound";
  const form = new URLSearchParams({ From: phone, Body: body, MessageSid: sid });
  const res = await api("/api/webhooks/twilio/inbound", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Twilio-Signature": await twilioSignature("test-twilio-token", url, form) },
    body: form.toString(),
  });
  expect(res.status).toBe(200);
  return res.text();
}

const textsTo = (phone: string, after = 0) =>
  db
    .select()
    .from(outbox)
    .where(and(eq(outbox.to, phone), gt(outbox.id, after)));

/** The outbox SMS the background send writes, once it has landed. */
const confirmationTextTo = (phone: string, after: number) =>
  vi.waitFor(
    async () => {
      const rows = await textsTo(phone, after);
      if (rows.length === 0) throw new Error("not sent yet");
      return rows;
    },
    { timeout: 2000, interval: 10 },
  );

const marketingAllowed = async (phone: string) => (await consentState(db, phone)).marketingAllowed;

describe("a contact-form tick is confirmed by the number itself", () => {
  it("allows no marketing until the number replies YES to the one confirmation text", async () => {
    const phone = uniquePhone();
    const before = await lastOutboxId();
    expect((await call("/api/contact", { body: message(phone, ticked) })).status).toBe(201);

    // Every marketing check ignores the tick: the state, the dispatch check and the audience.
    expect(await marketingAllowed(phone)).toEqual({ sms: false, whatsapp: false });
    expect(await marketingAllowedAmong(db, [phone], "sms")).toEqual(new Set());
    const marketingRules = { category: "marketing", channel: "sms", now: Date.now() } as const;
    expect((await exclusionsOf(db, [phone], marketingRules)).get(phone)).toBe("no_consent");

    const [text, ...more] = await confirmationTextTo(phone, before);
    expect(more).toEqual([]);
    expect(text!.body).toBe(CONSENT_CONFIRMATION_REQUEST.es);

    const reply = await textFrom(phone, "Si");
    expect(reply).toContain("gracias, recibirás nuestras ofertas");
    expect(await marketingAllowed(phone)).toEqual({ sms: true, whatsapp: true });
    expect(await marketingAllowedAmong(db, [phone], "sms")).toEqual(new Set([phone]));
    expect((await exclusionsOf(db, [phone], marketingRules)).get(phone)).toBeUndefined();
    expect((await consentFor(phone)).filter((r) => r.kind === "consent")).toEqual([
      expect.objectContaining({ basis: "unconfirmed", source: "contact_form", messageId: null }),
      expect.objectContaining({
        basis: "express",
        source: "contact_form",
        text: CONTACT_FORM_CONSENT.es,
        textVersion: CONTACT_FORM_CONSENT.version,
        messageId: expect.stringMatching(/^SM/),
      }),
    ]);
    // A second YES (or the same one delivered again) confirms nothing more.
    expect(await textFrom(phone, "YES")).not.toContain("thanks");
    expect((await consentFor(phone)).filter((r) => r.basis === "express")).toHaveLength(1);
  });

  it("texts a number once however often the box is ticked for it, and a YES from a number never asked confirms nothing", async () => {
    const phone = uniquePhone();
    const before = await lastOutboxId();
    for (let i = 0; i < 3; i++) expect((await call("/api/contact", { body: message(phone, { ...ticked, language: "en" }) })).status).toBe(201);
    const texts = await confirmationTextTo(phone, before);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await textsTo(phone, before)).toHaveLength(1);
    expect(texts[0]!.body).toBe(CONSENT_CONFIRMATION_REQUEST.en);

    // Three months on, a new tick may ask again.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + CONSENT_CONFIRMATION_RESEND_MS + 60_000);
    const later = await lastOutboxId();
    expect((await call("/api/contact", { body: message(phone, { ...ticked, language: "en" }) })).status).toBe(201);
    expect(await confirmationTextTo(phone, later)).toHaveLength(1);
    vi.useRealTimers();

    // Ticked, never texted (say, an opted-out number), or not ticked at all: YES is only an opt-in.
    const stranger = uniquePhone();
    expect((await call("/api/contact", { body: message(stranger) })).status).toBe(201);
    await textFrom(stranger, "YES");
    expect(await marketingAllowed(stranger)).toEqual({ sms: false, whatsapp: false });
  });

  it("charges the confirmation text to the code texts' limits: past them nothing is sent and the tick stays unconfirmed", async () => {
    const phone = uniquePhone();
    const { limit, windowMs } = RATE_LIMITS.codeSendPerPhone;
    await db.insert(rateLimits).values({ key: `codeSendPerPhone:${phone}`, count: limit, resetAt: Date.now() + windowMs });
    const before = await lastOutboxId();
    expect((await call("/api/contact", { body: message(phone, ticked) })).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await textsTo(phone, before)).toEqual([]);
    expect(await consentFor(phone)).toEqual([expect.objectContaining({ basis: "unconfirmed" })]);
    await textFrom(phone, "YES");
    expect(await marketingAllowed(phone)).toEqual({ sms: false, whatsapp: false });

    // A text that goes counts against the number's and the hourly budget's windows, as a code text does.
    const counted = uniquePhone();
    const budget = await db.select().from(rateLimits).where(eq(rateLimits.key, REQUESTED_SMS_BUDGET_KEY)).get();
    expect((await call("/api/contact", { body: message(counted, ticked) })).status).toBe(201);
    expect(
      (
        await db
          .select()
          .from(rateLimits)
          .where(eq(rateLimits.key, `codeSendPerPhone:${counted}`))
          .get()
      )?.count,
    ).toBe(1);
    expect((await db.select().from(rateLimits).where(eq(rateLimits.key, REQUESTED_SMS_BUDGET_KEY)).get())?.count).toBeGreaterThan(budget?.count ?? 0);
  });

  it("words the confirmation text in GSM-7 characters, one segment, in both languages", () => {
    for (const text of Object.values(CONSENT_CONFIRMATION_REQUEST)) expect(countSms(text)).toMatchObject({ encoding: "GSM_7BIT", messages: 1 });
  });
});
