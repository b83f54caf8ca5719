import { describe, expect, it } from "vitest";
import { api, signInAs } from "../test/fixtures";

describe("GET /api/admin/settings", () => {
  it("names the owner admin and the providers", async () => {
    const { token } = await signInAs("support");
    const res = await api("/api/admin/settings", { token });
    const body = (await res.json()) as { ownerName: string; smsProvider: string; whatsappProvider: string; sendRatePerSecond: number };
    expect(body).toMatchObject({ smsProvider: "outbox", whatsappProvider: "outbox", sendRatePerSecond: 1000 });
    expect(typeof body.ownerName).toBe("string");
  });
});
