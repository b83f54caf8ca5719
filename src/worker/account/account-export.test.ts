import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { captureSessionOf } from "../platform/capture";
import { call, json } from "../test/fixtures";
import { populatedDriver } from "../test/populated-driver";

describe("downloading my data", () => {
  it("is one JSON attachment with every section", async () => {
    const d = await populatedDriver();
    const res = await call("/api/account/export", { token: d.tokens.idToken });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Disposition")).toBe('attachment; filename="blockpilot-data.json"');
    const body = await json(res);
    expect(body.profile).toMatchObject({ id: d.user.id, phoneNumber: d.phone, name: d.name, email: d.email });
    // The platform names the account by its customer id and name (no email comes back).
    expect(body.platformConnection).toMatchObject(d.platformAccount);
    expect(body.filters.stations).toHaveLength(1);
    expect(body.stationZones).toEqual([{ app: "flex", stationId: d.stationZone.stationId, timeZone: "America/Chicago" }]);
    expect(body.offers).toMatchObject({ total: 1, truncated: false, limit: 10_000 });
    expect(body.payments.rows).toEqual([expect.objectContaining({ id: d.paymentId, amountCents: 4900 })]);
    expect(body.serviceTime.rows).toHaveLength(1);
    expect(body.invitations.rows).toEqual([expect.objectContaining({ phoneNumber: d.friend })]);
    expect(body.consent.history.rows).toEqual([expect.objectContaining({ kind: "consent", basis: "express" })]);
    expect(body.consent.optOuts).toEqual([expect.objectContaining({ channel: "sms" })]);
    expect(body.reseller).toMatchObject({ status: "applied" });
    // No secret is in it.
    expect(JSON.stringify(body)).not.toMatch(/passwordHash|mfaSecret|sealed|codeHash|pbkdf2/);
    await captureSessionOf(env, d.user.id).stop(d.user.id);
  });
});
