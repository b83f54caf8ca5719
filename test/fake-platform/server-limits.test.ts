/**
 * The fake platform's limit per account over HTTP (limit-models.ts): past the model's count,
 * "Rate exceeded" and a lockout that each call during it prolongs; every capacity call counts;
 * accounts without a model keep today's offers bucket only; 307 and 420 on demand.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakePlatform, startFakePlatform } from "./server.ts";

let fake: FakePlatform;
beforeAll(async () => {
  fake = await startFakePlatform({ config: { offersRate: null } });
});
afterAll(() => fake.close());

let n = 0;
const post = async (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${fake.url}${path}`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body), redirect: "manual" });

/** An account with the given limit settings, signed in (Spark's modelled sign-in gives an access token every capacity call takes). */
async function account(settings: Record<string, unknown>) {
  const email = `limits-${n++}@example.com`;
  await post("/__control/accounts", { email, password: "pw", ...settings });
  const tokens = (await (await post("/spark/auth/sign-in", { email, password: "pw" })).json()) as { access_token: string };
  const headers = { "x-amz-access-token": tokens.access_token };
  return {
    email,
    offers: () => post("/flex/GetOffersForProviderPost", { apiVersion: "V2", filters: { serviceAreaFilter: [], timeFilter: {} }, serviceAreaIds: [] }, headers),
    schedule: () => fetch(`${fake.url}/flex/scheduledAssignments`, { headers }),
    accept: () => post("/flex/AcceptOffer", { __type: "AcceptOfferInput", offerId: "none" }, headers),
    limits: async (body: Record<string, unknown> = {}) =>
      (await (await post("/__control/limits", { account: email, ...body })).json()) as Record<string, unknown>,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the fake's limit per account", () => {
  it("burst: 8 capacity calls in 10 s answered, the 9th Rate exceeded, calls during the lockout prolong it", async () => {
    // Lockouts and sleeps with margins of most of a second: on a busy machine a request can take hundreds of ms.
    const a = await account({ limitModel: "burst", lockoutMs: 2000 });
    for (let i = 0; i < 4; i++) expect((await a.offers()).status).toBe(200);
    // Every capacity call counts, not only the offers call.
    for (let i = 0; i < 4; i++) expect((await a.schedule()).status).toBe(200);
    const refused = await a.offers();
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ message: "Rate exceeded" });
    expect(refused.headers.get("retry-after")).toBeNull();
    expect(await a.limits()).toMatchObject({ limitModel: "burst", lockoutMs: 2000, lockouts: 1 });
    // A call 1.2 s in is refused and restarts the lockout: 1.2 s after it, past the first lockout's end, still locked out.
    await sleep(1200);
    expect((await a.schedule()).status).toBe(400);
    await sleep(1200);
    expect((await a.offers()).status).toBe(400);
    expect((await a.limits()).lockouts).toBe(1);
  });

  it("after the lockout the window still holds its calls: a call then starts a new lockout, one untouched ends", async () => {
    const a = await account({ limitModel: "burst", lockoutMs: 1000 });
    for (let i = 0; i < 8; i++) await a.schedule();
    const limitedAt = Date.now();
    expect((await a.offers()).status).toBe(400);
    const { lockedUntil } = (await a.limits()) as { lockedUntil: number };
    expect(lockedUntil).toBeGreaterThanOrEqual(limitedAt + 1000);
    await sleep(lockedUntil - Date.now() + 100);
    expect((await a.limits()).lockedUntil).toBe(0);
    // The 8 calls are still within the 10 s window.
    expect((await a.offers()).status).toBe(400);
    expect((await a.limits()).lockouts).toBe(2);
  });

  it("an account without a model is not limited (beyond the offers bucket, off here); generous allows the production pace", async () => {
    const none = await account({});
    for (let i = 0; i < 30; i++) expect((await none.offers()).status).toBe(200);
    const generous = await account({ limitModel: "generous" });
    for (let i = 0; i < 20; i++) expect((await generous.offers()).status).toBe(200);
    expect((await generous.offers()).status).toBe(400);
  });

  it("answers a 307 captcha or a 420 on demand, on accepts or on offers calls", async () => {
    const a = await account({});
    await a.limits({
      faults: [
        { kind: "307", on: "accept" },
        { kind: "420", on: "offers" },
        { kind: "420", on: "accept" },
      ],
    });
    const captcha = await a.accept();
    expect(captcha.status).toBe(307);
    expect(captcha.headers.get("location")).toMatch(/^https:\/\//);
    const unsigned = await a.offers();
    expect(unsigned.status).toBe(420);
    expect(unsigned.headers.get("x-amzn-errortype")).toBe("OperationFailedException");
    expect((await a.accept()).status).toBe(420);
    expect((await a.offers()).status).toBe(200);
  });
});
