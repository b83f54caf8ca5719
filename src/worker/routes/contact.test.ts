import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { CONTACT_FORM_CONSENT, REGISTRATION_CONSENT } from "../../shared/consent-texts";
import { consentState } from "../compliance/consent";
import { createDb } from "../db/client";
import { consentEvents, leads } from "../db/schema";
import { call, uniqueAddress, uniquePhone } from "../test/fixtures";

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

  it("records a ticked consent box in the ledger with the lead: the exact wording shown, its version and language", async () => {
    const phone = uniquePhone();
    expect((await call("/api/contact", { body: message(phone, ticked) })).status).toBe(201);
    const [lead] = await leadsFor(phone);
    expect(await consentFor(phone)).toEqual([
      expect.objectContaining({
        kind: "consent",
        basis: "express",
        source: "contact_form",
        channel: "all",
        text: CONTACT_FORM_CONSENT.es,
        textVersion: CONTACT_FORM_CONSENT.version,
        language: "es",
        userId: null,
        at: lead!.createdAt,
      }),
    ]);
    expect((await consentState(db, phone)).marketingAllowed).toEqual({ sms: true, whatsapp: true });

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
