import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createSmsProvider } from "./provider";

describe("outbox SMS provider", () => {
  it("stores each message and answers a unique provider id", async () => {
    const sms = createSmsProvider(env);
    expect(sms.name).toBe("outbox");
    const a = await sms.send({ to: "+13055550199", body: "Your code is 123456" });
    const b = await sms.send({ to: "+13055550199", body: "Second" });
    expect(a.ok && b.ok).toBe(true);
    const rows = await env.DB.prepare('SELECT body, provider_id FROM outbox WHERE "to" = ? ORDER BY id')
      .bind("+13055550199")
      .all<{ body: string; provider_id: string }>();
    expect(rows.results.map((r) => r.body)).toEqual(["Your code is 123456", "Second"]);
    expect(new Set(rows.results.map((r) => r.provider_id)).size).toBe(2);
  });

  it("answers a lookup exactly from what it stored", async () => {
    const sms = createSmsProvider(env);
    const to = "+13055550142";
    const since = Date.now() - 1_000;
    const sent = await sms.send({ to, body: "Lookup me" });
    expect(await sms.lookup({ to, body: "Lookup me", since })).toEqual({
      found: true,
      providerId: (sent as { providerId: string }).providerId,
      status: "accepted",
      errorCode: null,
      errorMessage: null,
    });
    expect(await sms.lookup({ to, body: "Not me", since })).toEqual({ found: false });
    expect(await sms.lookup({ to, body: "Lookup me", since: Date.now() + 60_000 })).toEqual({ found: false });
  });

  it("refuses an unknown provider setting", () => {
    expect(() => createSmsProvider({ ...env, SMS_PROVIDER: "carrier-pigeon" })).toThrow(/Unknown SMS_PROVIDER/);
  });
});
