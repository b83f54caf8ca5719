/**
 * Flex's adapter against the fake platform over HTTP (test/fake-platform, under /flex), each test
 * in a world of its own: every call and answer of the protocol (docs/engine.md, "The protocol"),
 * with the fake's answers and the adapter's requests held against the documented bodies
 * (src/worker/test/flex-protocol.ts).
 */
import { describe, expect, it } from "vitest";
import { landingAfterSignIn, newWorld } from "../test/fake-platform-world";
import { CAPACITY_HEADERS, FLEX_FIXTURES as F, shapeMismatches } from "../test/flex-protocol";
import { FlexPlatform } from "./flex-platform";
import { codeChallenge, newCodeVerifier, newDeviceSerial, newInstanceId, readLanding, signInUrl } from "./flex-sign-in";
import { PlatformError, type PlatformOffer } from "./platform";

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a PlatformError");
    },
    (err: unknown) => {
      if (!(err instanceof PlatformError)) throw err;
      return err;
    },
  );

const DMI4 = { serviceAreaId: "area-dmi4", name: "Doral (DMI4) - Amazon.com" };
const DTP9 = { serviceAreaId: "area-dtp9", name: "Tampa (DTP9) - Amazon.com" };

/** A world with an account on two stations (Doral its home), an adapter on it, and a code from its sign-in page. */
async function world(offersRate: number | null = null) {
  const w = await newWorld();
  await w.control("stations", { app: "flex", stations: [DMI4, DTP9] });
  const { customerId, name } = (await w.control("accounts", {
    email: "driver@example.com",
    password: "pw",
    stations: [DMI4.serviceAreaId, DTP9.serviceAreaId],
    offersRate,
    offersBurst: 1,
  })) as { customerId: string; name: string };
  const base = `${w.base}/flex`;
  const instanceId = newInstanceId();
  const platform = new FlexPlatform({
    identityBase: base,
    capacityBase: base,
    appBuild: "303338310",
    appVersion: "3.110.0",
    timeoutMs: 400,
    instanceId: () => instanceId,
  });
  const code = async () => {
    const verifier = newCodeVerifier();
    const serial = newDeviceSerial();
    const landing = readLanding(base, await landingAfterSignIn(signInUrl(base, await codeChallenge(verifier), serial, "en"), "driver@example.com"));
    if (!landing.ok) throw new Error(landing.reason);
    return { code: landing.code, verifier, serial };
  };
  const connected = async () => {
    const c = await code();
    return { ...(await platform.register(c.code, c.verifier, c.serial)), serial: c.serial };
  };
  const requests = async (path: string) => (await w.requests()).filter((r) => r.path === path);
  return { w, base, platform, instanceId, customerId, name, code, connected, requests };
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });

describe("registering the device and its tokens", () => {
  it("sends the documented registration and reads the nested tokens (expires_in a string) and the customer", async () => {
    const t = await world();
    const before = Date.now();
    const { tokens, account, serial } = await t.connected();
    expect(account).toEqual({ customerId: t.customerId, name: t.name });
    expect(tokens.accessToken).toMatch(/^Atna\|/);
    expect(tokens.refreshToken).toMatch(/^Atnr\|/);
    expect(tokens.accessExpiresAt).toBeGreaterThanOrEqual(before + 3_599_000);
    const [sent] = await t.requests("/auth/register");
    expect(shapeMismatches(sent!.body, F.registerRequest)).toEqual([]);
    expect(sent!.body).toMatchObject({
      auth_data: { code_algorithm: "SHA-256", client_domain: "DeviceLegacy" },
      registration_data: { domain: "Device", app_name: "com.amazon.rabbit", app_version: "303338310", device_type: "A1MPSLFC7L5AFK", device_serial: serial },
      requested_token_type: F.registerRequest.requested_token_type,
    });
    expect(sent!.headers).toMatchObject({ "content-type": "application/json", "x-amzn-identity-auth-domain": "api.amazon.com" });
  });

  it("the fake answers registration as documented, and refuses a used code or a wrong verifier", async () => {
    const t = await world();
    const c = await t.code();
    const body = structuredClone(F.registerRequest) as unknown as { auth_data: Record<string, string>; registration_data: Record<string, string> };
    Object.assign(body.auth_data, { authorization_code: c.code, code_verifier: "not-the-verifier", client_id: new URL("http://x").host });
    const wrong = await post(`${t.base}/auth/register`, body);
    expect(wrong.status).toBe(400);
    // A code is good once, even after a refusal.
    expect((await rejection(t.platform.register(c.code, c.verifier, c.serial))).kind).toBe("refused");
    const d = await t.code();
    const { clientIdOf } = await import("./flex-sign-in");
    Object.assign(body.auth_data, { authorization_code: d.code, code_verifier: d.verifier, client_id: clientIdOf(d.serial) });
    body.registration_data.device_serial = d.serial;
    const ok = await post(`${t.base}/auth/register`, body);
    expect(ok.status).toBe(200);
    expect(shapeMismatches(await ok.json(), F.registerAnswer)).toEqual([]);
  });

  it("refreshes through /auth/token (expires_in a number); a revoked device's refresh is invalid_grant: refused", async () => {
    const t = await world();
    const { tokens } = await t.connected();
    const next = await t.platform.refresh(tokens.refreshToken);
    expect(next).toMatchObject({ refreshToken: tokens.refreshToken, accessToken: expect.stringMatching(/^Atna\|/) });
    expect(next.accessToken).not.toBe(tokens.accessToken);
    const [sent] = await t.requests("/auth/token");
    expect(shapeMismatches(sent!.body, F.refreshRequest)).toEqual([]);
    expect(sent!.body).toMatchObject({ app_name: "com.amazon.rabbit", source_token_type: "refresh_token", requested_token_type: "access_token" });
    const raw = await post(`${t.base}/auth/token`, { ...F.refreshRequest, source_token: tokens.refreshToken });
    expect(shapeMismatches(await raw.json(), F.refreshAnswer)).toEqual([]);

    await t.w.control("revoke", { customerId: t.customerId });
    const refused = await post(`${t.base}/auth/token`, { ...F.refreshRequest, source_token: tokens.refreshToken });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual(F.refreshRefused);
    expect(await rejection(t.platform.refresh(tokens.refreshToken))).toMatchObject({ kind: "refused", message: "invalid_grant", status: 400 });
  });

  it("deregistering ends the device's tokens", async () => {
    const t = await world();
    const { tokens } = await t.connected();
    await t.platform.deregister(tokens.accessToken);
    expect((await rejection(t.platform.stations(tokens.accessToken))).kind).toBe("refused");
    expect((await rejection(t.platform.refresh(tokens.refreshToken))).kind).toBe("refused");
  });
});

describe("capacity calls", () => {
  it("carry x-amz-access-token and the app's headers, never Authorization; without the token the platform answers 403", async () => {
    const t = await world();
    const { tokens } = await t.connected();
    await t.platform.stations(tokens.accessToken);
    await t.platform.offers(tokens.accessToken, [DMI4.serviceAreaId]);
    for (const path of ["/eligibleServiceAreas", "/getOfferFiltersOptions", "/GetOffersForProviderPost"]) {
      const [sent] = await t.requests(path);
      for (const [name, shape] of Object.entries(CAPACITY_HEADERS)) expect(sent!.headers[name], `${path} ${name}`).toMatch(shape);
      expect(sent!.headers["x-amz-access-token"]).toBe(tokens.accessToken);
      expect(sent!.headers["x-flex-instance-id"]).toBe(t.instanceId);
      expect(sent!.headers.authorization).toBeUndefined();
    }
    expect((await t.requests("/GetOffersForProviderPost"))[0]!.headers["content-type"]).toBe("application/json");
    const bare = await fetch(`${t.base}/eligibleServiceAreas`, { headers: { Authorization: `Bearer ${tokens.accessToken}` } });
    expect(bare.status).toBe(403);
    expect(shapeMismatches(await bare.json(), F.accessRefused)).toEqual([]);
  });

  it("stations: the eligible areas and the filter options, named as the platform names them less its suffix", async () => {
    const t = await world();
    const { tokens } = await t.connected();
    const headers = { "x-amz-access-token": tokens.accessToken };
    expect(shapeMismatches(await (await fetch(`${t.base}/eligibleServiceAreas`, { headers })).json(), F.eligibleAnswer)).toEqual([]);
    expect(shapeMismatches(await (await fetch(`${t.base}/getOfferFiltersOptions`, { headers })).json(), F.filterOptionsAnswer)).toEqual([]);
    expect(await t.platform.stations(tokens.accessToken)).toEqual([
      { id: DMI4.serviceAreaId, name: "Doral (DMI4)", group: null, timeZone: null },
      { id: DTP9.serviceAreaId, name: "Tampa (DTP9)", group: null, timeZone: null },
    ]);
  });

  it("offers: the eligible areas and the chosen stations' filter; times in ms, pay in cents; the answer as documented", async () => {
    const t = await world();
    const { tokens } = await t.connected();
    const startsAt = Date.parse("2030-01-07T15:00:00Z");
    const [id] = await t.w.offers([
      { serviceAreaId: DTP9.serviceAreaId, startsAt, endsAt: startsAt + 3 * 3_600_000, payCents: 9150 },
      { serviceAreaId: DMI4.serviceAreaId, startsAt, endsAt: startsAt + 3_600_000, payCents: 3000 },
    ]);
    const offers = await t.platform.offers(tokens.accessToken, [DTP9.serviceAreaId]);
    // Listed until taken: it expires when its block starts.
    expect(offers).toEqual([
      { id, stationId: DTP9.serviceAreaId, startsAt, endsAt: startsAt + 3 * 3_600_000, payCents: 9150, expiresAt: startsAt, hidden: false },
    ]);
    const [sent] = await t.requests("/GetOffersForProviderPost");
    expect(shapeMismatches(sent!.body, F.offersRequest)).toEqual([]);
    // serviceAreaIds: the eligible ones (the home area); the filter: the chosen stations.
    expect(sent!.body).toEqual({
      apiVersion: "V2",
      filters: { serviceAreaFilter: [DTP9.serviceAreaId], timeFilter: {} },
      serviceAreaIds: [DMI4.serviceAreaId],
    });
    const raw = await post(`${t.base}/GetOffersForProviderPost`, F.offersRequest, { "x-amz-access-token": tokens.accessToken });
    expect(shapeMismatches(await raw.json(), F.offersAnswer)).toEqual([]);
  });

  it("accepting: the documented body; won on a bare 200 (the block is the offer's, its id from the schedule), then 410 gone; forfeited with DELETE", async () => {
    const t = await world();
    const { tokens } = await t.connected();
    // The platform speaks whole seconds.
    const startsAt = Math.floor(Date.now() / 1000 + 5 * 3600) * 1000;
    const [id] = await t.w.offers([{ serviceAreaId: DMI4.serviceAreaId, startsAt, endsAt: startsAt + 3_600_000, payCents: 4550 }]);
    const offer: PlatformOffer = {
      id: id!,
      stationId: DMI4.serviceAreaId,
      startsAt,
      endsAt: startsAt + 3_600_000,
      payCents: 4550,
      expiresAt: startsAt,
      hidden: false,
    };
    expect(await t.platform.accept(tokens.accessToken, offer)).toEqual({
      kind: "won",
      block: { id: null, offerId: id, stationId: DMI4.serviceAreaId, startsAt, endsAt: startsAt + 3_600_000, payCents: 4550, arrivedAt: null },
    });
    const [sent] = await t.requests("/AcceptOffer");
    expect(sent!.body).toEqual({ ...F.acceptRequest, offerId: id });
    expect(await t.platform.accept(tokens.accessToken, offer)).toEqual({ kind: "gone" });

    const raw = await fetch(`${t.base}/scheduledAssignments`, { headers: { "x-amz-access-token": tokens.accessToken } });
    expect(shapeMismatches(await raw.json(), F.scheduledAssignmentsAnswer)).toEqual([]);
    const [block] = await t.platform.scheduledBlocks(tokens.accessToken);
    expect(block).toMatchObject({ id: expect.stringMatching(/^SA/), stationId: DMI4.serviceAreaId, startsAt, endsAt: startsAt + 3_600_000, payCents: 4550 });
    await t.platform.forfeit(tokens.accessToken, block!.id!);
    expect((await t.w.requests()).some((r) => r.method === "DELETE" && r.path === `/schedule/blocks/${block!.id}`)).toBe(true);
    expect(await t.platform.scheduledBlocks(tokens.accessToken)).toEqual([]);
    expect((await rejection(t.platform.forfeit(tokens.accessToken, block!.id!))).status).toBe(404);
  });
});

describe("the platform's other answers", () => {
  it('over its limit: 400 "Rate exceeded" with no Retry-After, read as rate-limited (no wait known)', async () => {
    const t = await world(0.01);
    const { tokens } = await t.connected();
    await t.platform.offers(tokens.accessToken, [DMI4.serviceAreaId]);
    const raw = await post(`${t.base}/GetOffersForProviderPost`, F.offersRequest, { "x-amz-access-token": tokens.accessToken });
    expect(raw.status).toBe(400);
    expect(raw.headers.get("Retry-After")).toBeNull();
    expect(await raw.json()).toEqual(F.rateExceeded);
    const err = await rejection(t.platform.offers(tokens.accessToken, [DMI4.serviceAreaId]));
    expect(err).toMatchObject({ kind: "rate_limited", status: 400, retryAfterMs: undefined });
  });

  it("403 is refused; 420 asks for a signature and 307 (never followed) for a captcha; 5xx and time-outs unavailable", async () => {
    const t = await world();
    const { tokens } = await t.connected();
    await t.w.control("config", {
      script: [
        { kind: "403" },
        { kind: "420" },
        { kind: "5xx", status: 502 },
        { kind: "timeout" },
        { kind: "307", on: "accept" },
        { kind: "420", on: "accept" },
      ],
    });
    const offers = () => t.platform.offers(tokens.accessToken, [DMI4.serviceAreaId]);
    expect(await rejection(offers())).toMatchObject({ kind: "refused", status: 403 });
    expect(await rejection(offers())).toMatchObject({ kind: "signature_required", status: 420 });
    expect(await rejection(offers())).toMatchObject({ kind: "unavailable", status: 502 });
    expect((await rejection(offers())).kind).toBe("unavailable");
    const offer: PlatformOffer = { id: "OFx", stationId: DMI4.serviceAreaId, startsAt: 1, endsAt: 2, payCents: 0, expiresAt: 1, hidden: false };
    expect(await rejection(t.platform.accept(tokens.accessToken, offer))).toMatchObject({ kind: "captcha", status: 307 });
    expect(await rejection(t.platform.accept(tokens.accessToken, offer))).toMatchObject({ kind: "signature_required", status: 420 });
  });

  it("an answer of the wrong shape is unavailable, and a platform that cannot be reached too", async () => {
    const t = await world();
    const { tokens } = await t.connected();
    const odd = new FlexPlatform({
      identityBase: `${t.w.base}/__control/stats?`,
      capacityBase: `${t.w.base}/__control/stats?`,
      appBuild: "1",
      appVersion: "1.0",
      timeoutMs: 400,
    });
    expect((await rejection(odd.offers(tokens.accessToken, ["x"]))).kind).toBe("unavailable");
    const gone = new FlexPlatform({ identityBase: "http://127.0.0.1:1", capacityBase: "http://127.0.0.1:1", appBuild: "1", appVersion: "1.0", timeoutMs: 400 });
    expect((await rejection(gone.refresh("Atnr|x"))).kind).toBe("unavailable");
  });
});
