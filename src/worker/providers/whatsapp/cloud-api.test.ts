import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { dbFor } from "../../db/client";
import { createLogger } from "../../log";
import { findTemplate, syncTemplates, templatePage } from "../../messaging/templates";
import { fakeTenant, uniquePhone, uniqueTag } from "../../test/fixtures";
import { CloudApiWhatsApp } from "./cloud-api";
import { createWhatsAppProvider } from "./provider";

const log = createLogger({ test: "cloud-api" });
const template = (name: string, language = "en_US", status = "APPROVED", category = "MARKETING") => ({
  id: uniqueTag("tpl"),
  name,
  language,
  status,
  category,
  components: [
    { type: "HEADER", format: "TEXT", text: `${name} header` },
    { type: "BODY", text: `${name} body` },
  ],
});

function cloudApi(overrides: Partial<Env> = {}) {
  const tenant = fakeTenant();
  return { tenant, whatsapp: new CloudApiWhatsApp(tenant.env(overrides)) };
}

describe("CloudApiWhatsApp", () => {
  it("is what WHATSAPP_PROVIDER = cloud-api builds, paced per phone-number id", () => {
    const provider = createWhatsAppProvider({ ...env, WHATSAPP_PROVIDER: "cloud-api" });
    expect(provider.sender).toBe("whatsapp:100000000000000");
    expect(createWhatsAppProvider(env).sender).toBeNull();
    expect(() => createWhatsAppProvider({ ...env, WHATSAPP_PROVIDER: "telegram" })).toThrow(/Unknown WHATSAPP_PROVIDER/);
  });

  it("sends a template with the Bearer token and answers the wamid", async () => {
    const { tenant, whatsapp } = cloudApi();
    const to = uniquePhone();
    const outcome = await whatsapp.sendTemplate(to, { name: "welcome_back", language: "en_US" });
    expect(outcome).toMatchObject({ ok: true, providerId: expect.stringMatching(/^wamid\./) });
    expect((await tenant.messages()).messages).toMatchObject([{ channel: "whatsapp", to, from: "100000000000000", body: "template:welcome_back:en_US" }]);
    expect(await whatsapp.sendText(to, "Reply STOP to opt out")).toMatchObject({ ok: true });
  });

  it("passes the template's header and body parameters on to Meta", async () => {
    const { tenant, whatsapp } = cloudApi();
    const to = uniquePhone();
    const components = [
      { type: "header" as const, parameters: [{ type: "text" as const, text: "Ana" }] },
      { type: "body" as const, parameters: [{ type: "text" as const, text: "12/03/26" }] },
    ];
    expect(await whatsapp.sendTemplate(to, { name: "welcome_back", language: "en_US", components })).toMatchObject({ ok: true });
    expect((await tenant.messages()).messages).toMatchObject([{ to, body: "template:welcome_back:en_US:header=Ana|body=12/03/26" }]);
  });

  it("tags a send with its ledger reference (biz_opaque_callback_data), which the fake echoes in its status webhook", async () => {
    const { tenant, whatsapp } = cloudApi();
    const to = uniquePhone();
    expect(await whatsapp.sendTemplate(to, { name: "welcome_back", language: "en_US" }, "m:42")).toMatchObject({ ok: true });
    expect((await tenant.messages()).messages).toMatchObject([{ to, reference: "m:42" }]);
  });

  it("keeps Meta's code on final errors: bad token 190, unknown template 132001, not on WhatsApp 131026", async () => {
    const { whatsapp: badToken } = cloudApi({ WHATSAPP_TOKEN: "expired" });
    expect(await badToken.sendTemplate(uniquePhone(), { name: "welcome_back", language: "en_US" })).toMatchObject({
      ok: false,
      retryable: false,
      errorCode: "190",
    });
    const { tenant, whatsapp } = cloudApi();
    expect(await whatsapp.sendTemplate(uniquePhone(), { name: "nope", language: "en_US" })).toMatchObject({ ok: false, retryable: false, errorCode: "132001" });
    const to = uniquePhone();
    await tenant.configure({ permanent: { [to]: "131026" } });
    expect(await whatsapp.sendTemplate(to, { name: "welcome_back", language: "en_US" })).toMatchObject({ ok: false, retryable: false, errorCode: "131026" });
  });

  it("retries throttling (130429), 5xx and time-outs", async () => {
    const { tenant, whatsapp } = cloudApi();
    await tenant.configure({ script: [{ kind: "429", retryAfter: 4 }, { kind: "5xx" }, { kind: "timeout" }] });
    const ref = { name: "welcome_back", language: "en_US" };
    expect(await whatsapp.sendTemplate(uniquePhone(), ref)).toMatchObject({ ok: false, retryable: true, errorCode: "130429", retryAfterSeconds: 4 });
    expect(await whatsapp.sendTemplate(uniquePhone(), ref)).toMatchObject({ ok: false, retryable: true, errorCode: "131000" });
    expect(await whatsapp.sendTemplate(uniquePhone(), ref)).toMatchObject({ ok: false, retryable: true, errorCode: "timeout" });
  });

  it("lists every template, following the paging links", async () => {
    const { tenant, whatsapp } = cloudApi();
    const list = ["a", "b", "c", "d", "e"].map((n) => template(`${n}_tpl`));
    await tenant.configure({ templates: list, templatePageSize: 2 });
    expect(await whatsapp.fetchTemplates()).toEqual(list);
    // The category comes from the provider; one it does not give (or we do not know) reads as marketing.
    await tenant.configure({ templates: [template("code_tpl", "en_US", "APPROVED", "AUTHENTICATION"), { ...template("odd_tpl"), category: "SOMETHING_NEW" }] });
    expect((await whatsapp.fetchTemplates()).map((t) => t.category)).toEqual(["AUTHENTICATION", "MARKETING"]);
    const { whatsapp: unauthorised } = cloudApi({ WHATSAPP_TOKEN: "nope" });
    await expect(unauthorised.fetchTemplates()).rejects.toThrow(/401/);
  });

  it("follows paging links only on the Graph API's origin, with our token", async () => {
    const { tenant, whatsapp } = cloudApi();
    // The same fake provider under another name: another origin, which would take the token if asked.
    const elsewhere = env.FAKE_PROVIDER_URL.replace("127.0.0.1", "localhost");
    await tenant.configure({ templates: ["a", "b", "c"].map((n) => template(`${n}_tpl`)), templatePageSize: 2, templateNextOrigin: elsewhere });
    await expect(whatsapp.fetchTemplates()).rejects.toThrow(
      `WhatsApp template list: the next page is not on ${new URL(env.FAKE_PROVIDER_URL).origin} (${new URL(elsewhere).origin}); not followed`,
    );
    expect((await tenant.stats()).templateLists).toBe(1);
    // A link that is not a URL at all fails the same way.
    await tenant.configure({ templateNextOrigin: "not a url" });
    await expect(whatsapp.fetchTemplates()).rejects.toThrow(/the next page is not on .*\(not a URL\); not followed/);
    expect((await tenant.stats()).templateLists).toBe(2);
  });

  it("a sync that meets a foreign paging link keeps the last good list and logs why", async () => {
    const { tenant } = cloudApi();
    const kept = template(uniqueTag("kept"));
    await tenant.configure({ templates: [kept] });
    const workerEnv = tenant.env();
    expect(await syncTemplates(workerEnv, log, { force: true })).toBe(true);
    await tenant.configure({
      templates: [template(uniqueTag("new")), template(uniqueTag("other"))],
      templatePageSize: 1,
      templateNextOrigin: "https://graph.example",
    });
    const warnings: unknown[] = [];
    const spy = vi.spyOn(console, "warn").mockImplementation((line: unknown) => void warnings.push(line));
    try {
      expect(await syncTemplates(workerEnv, log, { force: true })).toBe(false);
    } finally {
      spy.mockRestore();
    }
    expect(await findTemplate(dbFor(workerEnv.DB), { name: kept.name, language: kept.language })).toMatchObject({ name: kept.name });
    expect(JSON.stringify(warnings)).toContain("templates.sync_failed");
    expect(JSON.stringify(warnings)).toContain("(https://graph.example); not followed");
  });
});

describe("template sync", () => {
  it("mirrors the provider's list (upserts, drops what is gone) and serves approved ones", async () => {
    const { tenant } = cloudApi();
    const keep = template(uniqueTag("keep"));
    const rejected = template(uniqueTag("rejected"), "en_US", "REJECTED");
    const gone = template(uniqueTag("gone"));
    await tenant.configure({ templates: [keep, rejected, gone] });
    const workerEnv = tenant.env();
    expect(await syncTemplates(workerEnv, log, { force: true })).toBe(true);
    expect(await findTemplate(dbFor(env.DB), keep)).toMatchObject({ id: keep.id, category: "MARKETING", components: keep.components });
    expect(await findTemplate(dbFor(env.DB), rejected)).toBeNull();
    // Fresh copy: no call to the provider within ten minutes.
    await tenant.configure({ templates: [{ ...keep, components: [{ type: "BODY", text: "changed" }] }] });
    expect(await syncTemplates(workerEnv, log)).toBe(false);
    expect(await syncTemplates(workerEnv, log, { force: true })).toBe(true);
    expect(await findTemplate(dbFor(env.DB), gone)).toBeNull();
    expect((await findTemplate(dbFor(env.DB), keep))!.components).toEqual([{ type: "BODY", text: "changed" }]);
    const page = await templatePage(workerEnv, log, 1, 20);
    expect(page.rows.map((t) => t.name)).toContain(keep.name);
    expect(page.rows.every((t) => t.status === "APPROVED")).toBe(true);
  });

  it("keeps the last good copy when the provider fails", async () => {
    const { tenant } = cloudApi({ WHATSAPP_TOKEN: "broken" });
    expect(await syncTemplates(tenant.env({ WHATSAPP_TOKEN: "broken" }), log, { force: true })).toBe(false);
  });

  it("does nothing for the outbox provider: the seeded table is the list", async () => {
    expect(await syncTemplates(env, log, { force: true })).toBe(false);
  });
});
