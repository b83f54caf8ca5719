import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, signInAs, uniquePhone, uniqueTag } from "../test/fixtures";

describe("GET /api/admin/outbox", () => {
  it("pages the outbox newest first, filtered by number", async () => {
    const { token } = await signInAs("owner");
    const phone = uniquePhone();
    for (const body of ["one", "two", "three"]) {
      await env.DB.prepare("INSERT INTO outbox (channel, \"to\", body, provider_id) VALUES ('sms', ?, ?, ?)").bind(phone, body, uniqueTag("pid")).run();
    }
    const res = await api(`/api/admin/outbox?to=${encodeURIComponent(`(${phone.slice(2, 5)}) ${phone.slice(5, 8)}-${phone.slice(8)}`)}&pageSize=20`, { token });
    const page = (await res.json()) as { total: number; rows: { to: string; body: string; channel: string }[] };
    expect(page.total).toBe(3);
    expect(page.rows.map((r) => r.body)).toEqual(["three", "two", "one"]);
    expect((await api("/api/admin/outbox?to=12", { token })).status).toBe(400);
    expect((await api("/api/admin/outbox?channel=fax", { token })).status).toBe(400);
  });
});
