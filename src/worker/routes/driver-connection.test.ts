/**
 * Connecting a Flex account through the platform's own sign-in page (docs/engine.md,
 * "Connecting"), against the fake platform over HTTP: the attempt and its address, the landing
 * address pasted back, each refusal's reason, the limits, and the device deregistered on
 * disconnecting.
 */
import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { RATE_LIMITS } from "../auth/rate-limit";
import { openSecret } from "../auth/secret-box";
import { platformAccounts, platformSignIns, users } from "../db/schema";
import { clientIdOf } from "../platform/flex-sign-in";
import { defaultWorld } from "../test/connected-driver";
import { landingAfterSignIn } from "../test/fake-platform-world";
import { call, db, json, seedUser, signIn } from "../test/fixtures";

let accounts = 0;
/** A Flex driver signed in to Blockpilot, with an account on the fake platform's default world. */
async function flexDriver(user: Parameters<typeof seedUser>[0] = {}, challenge: "none" | "code" = "none") {
  const email = `flex-${Date.now().toString(36)}-${accounts++}@example.com`;
  const { customerId, name } = (await defaultWorld().control("accounts", { email, password: "platform-pw", challenge, offersRate: null })) as {
    customerId: string;
    name: string;
  };
  const row = await seedUser({ app: "flex", expirationAt: Date.now() + 7 * 86_400_000, goodStanding: true, ...user });
  const { idToken } = await signIn(row);
  return { user: row, email, customerId, name, token: idToken };
}

type Attempt = { attemptId: string; signInUrl: string; expiresAt: number };
const startAttempt = async (token: string) => {
  const res = await call("/api/driver/connection/sign-in", { token, method: "POST" });
  expect(res.status).toBe(201);
  return json<Attempt>(res);
};
const land = (token: string, attemptId: string, landingUrl: string) => call("/api/driver/connection/landing", { token, body: { attemptId, landingUrl } });
const reasonOf = async (res: Response) => {
  expect(res.status).toBe(422);
  return (await json(res)).error.details.reason as string;
};

describe("connecting a Flex account through the platform's page", () => {
  it("the attempt's sign-in address carries its PKCE challenge and device; the landing connects, named by the customer", async () => {
    const d = await flexDriver({ language: "es" });
    const before = Date.now();
    const attempt = await startAttempt(d.token);
    const url = new URL(attempt.signInUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${env.FLEX_SIGN_IN_BASE}/ap/signin`);
    expect(url.searchParams.get("openid.oa2.code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("openid.oa2.code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get("openid.return_to")).toBe(`${env.FLEX_SIGN_IN_BASE}/ap/maplanding`);
    expect(url.searchParams.get("openid.oa2.scope")).toBe("device_auth_access");
    expect(url.searchParams.get("language")).toBe("es_US");
    const clientId = url.searchParams.get("openid.oa2.client_id")!;
    expect(clientId).toMatch(/^device:[0-9a-f]+$/);
    expect(attempt.expiresAt).toBeGreaterThanOrEqual(before + 10 * 60_000 - 1000);
    expect((await json(await call("/api/driver/connection", { token: d.token }))).pending).toEqual({ ...attempt, kind: "handoff" });

    const landingUrl = await landingAfterSignIn(attempt.signInUrl, d.email, "platform-pw");
    const res = await land(d.token, attempt.attemptId, landingUrl);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ status: "connected" });

    const stored = await db.select().from(platformAccounts).where(eq(platformAccounts.userId, d.user.id)).get();
    expect(stored).toMatchObject({ app: "flex", customerId: d.customerId, accountName: d.name });
    const opened = JSON.parse(await openSecret(stored!.sealedTokens!, env.MFA_ENCRYPTION_KEY));
    expect(opened).toMatchObject({ accessToken: expect.stringMatching(/^Atna\|/), refreshToken: expect.stringMatching(/^Atnr\|/) });
    // The device: the attempt's serial (the one its client id carries) and a new upper-case instance id.
    expect(`device:${clientIdOf(opened.device.serial)}`).toBe(clientId);
    expect(opened.device.instanceId).toMatch(/^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/);
    // Nothing of the password, the code or the verifier is kept.
    expect(JSON.stringify(stored)).not.toContain("platform-pw");
    expect(await db.select().from(platformSignIns).where(eq(platformSignIns.userId, d.user.id)).all()).toEqual([]);
    const status = await json(await call("/api/driver/connection", { token: d.token }));
    expect(status).toMatchObject({ connected: true, accountName: d.name, pending: null });
    expect((await db.select().from(users).where(eq(users.id, d.user.id)).get())?.accountConnected).toBe(true);
  });

  it("a new driver connects through the page, chooses a station, turns the system on and wins a block", async () => {
    const t = `${Date.now().toString(36)}${accounts++}`.toUpperCase();
    const station = { serviceAreaId: `W${t}`, name: `Doral ${t} (DMI4) - Amazon.com` };
    await defaultWorld().control("stations", { app: "flex", stations: [station] });
    const d = await flexDriver();
    await defaultWorld().control("accounts", { email: d.email, password: "platform-pw", stations: [station.serviceAreaId], offersRate: null });
    const attempt = await startAttempt(d.token);
    expect(await json(await land(d.token, attempt.attemptId, await landingAfterSignIn(attempt.signInUrl, d.email, "platform-pw")))).toEqual({
      status: "connected",
    });
    const { stations } = await json(await call("/api/driver/stations", { token: d.token }));
    expect(stations).toEqual([expect.objectContaining({ id: station.serviceAreaId, code: "DMI4", timeZone: "America/New_York" })]);
    const anyTime = [
      { start: "00:00", end: "00:00" },
      { start: "12:00", end: "12:00" },
    ];
    const schedule = Object.fromEntries(["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map((day) => [day, anyTime]));
    const filters = {
      stations: [{ id: station.serviceAreaId }],
      minPayCents: 0,
      minHourlyCents: 0,
      arrivalBufferMinutes: 0,
      minDurationMinutes: 0,
      maxDurationMinutes: 0,
      schedule,
      dailyCapMinutes: 0,
    };
    expect((await call("/api/driver/filters", { token: d.token, method: "PUT", body: filters })).status).toBe(200);
    const startsAt = Math.floor((Date.now() + 5 * 3_600_000) / 1000) * 1000;
    await defaultWorld().offers([{ serviceAreaId: station.serviceAreaId, startsAt, endsAt: startsAt + 3 * 3_600_000, payCents: 9150 }]);
    expect((await call("/api/driver/engine", { token: d.token, body: { on: true } })).status).toBe(200);
    try {
      await vi.waitFor(
        async () => {
          const { rows } = await json(await call("/api/driver/offers?status=won", { token: d.token }));
          expect(rows).toEqual([expect.objectContaining({ status: "won", payCents: 9150, startsAt, forfeitable: true })]);
        },
        { timeout: 6000, interval: 200 },
      );
    } finally {
      await call("/api/driver/engine", { token: d.token, body: { on: false } });
    }
  });

  it("a code asked for on the platform's page is answered there, and the landing connects", async () => {
    const d = await flexDriver({}, "code");
    const attempt = await startAttempt(d.token);
    const landingUrl = await landingAfterSignIn(attempt.signInUrl, d.email, "platform-pw", () => defaultWorld().code(d.email));
    expect(await json(await land(d.token, attempt.attemptId, landingUrl))).toEqual({ status: "connected" });
  });

  it("refuses an address that is not the landing page, one without a code, and keeps the attempt for another paste", async () => {
    const d = await flexDriver();
    const attempt = await startAttempt(d.token);
    const landingUrl = await landingAfterSignIn(attempt.signInUrl, d.email, "platform-pw");
    const code = new URL(landingUrl).searchParams.get("openid.oa2.authorization_code")!;
    for (const pasted of [
      "not an address",
      `https://evil.example/ap/maplanding?openid.oa2.authorization_code=${code}`,
      `${env.FLEX_SIGN_IN_BASE}/ap/signin?openid.oa2.authorization_code=${code}`,
      `${env.FLEX_SIGN_IN_BASE.replace("/flex", "/spark")}/ap/maplanding?openid.oa2.authorization_code=${code}`,
    ]) {
      expect(await reasonOf(await land(d.token, attempt.attemptId, pasted)), pasted).toBe("not_landing");
    }
    expect(await reasonOf(await land(d.token, attempt.attemptId, `${env.FLEX_SIGN_IN_BASE}/ap/maplanding?openid.assoc_handle=amzn_device_na`))).toBe("no_code");
    // The attempt is still good: the right address connects.
    expect(await json(await land(d.token, attempt.attemptId, landingUrl))).toEqual({ status: "connected" });
  });

  it("a code the platform refuses (used, or from another attempt's page) ends the attempt: sign in again", async () => {
    const d = await flexDriver();
    const first = await startAttempt(d.token);
    const used = await landingAfterSignIn(first.signInUrl, d.email, "platform-pw");
    expect((await land(d.token, first.attemptId, used)).status).toBe(200);
    const second = await startAttempt(d.token);
    expect(await reasonOf(await land(d.token, second.attemptId, used))).toBe("code_refused");
    expect(await reasonOf(await land(d.token, second.attemptId, used))).toBe("attempt_over");
    // Another attempt's code carries that attempt's challenge: this one's verifier does not match.
    const e = await flexDriver();
    const mine = await startAttempt(e.token);
    const page = await startAttempt(d.token);
    const foreign = await landingAfterSignIn(page.signInUrl, e.email, "platform-pw");
    expect(await reasonOf(await land(e.token, mine.attemptId, foreign))).toBe("code_refused");
    expect(await db.select().from(platformAccounts).where(eq(platformAccounts.userId, e.user.id)).get()).toBeUndefined();
  });

  it("an unknown, another driver's, replaced or expired attempt is over", async () => {
    const d = await flexDriver();
    const other = await flexDriver();
    const attempt = await startAttempt(d.token);
    const landingUrl = await landingAfterSignIn(attempt.signInUrl, d.email, "platform-pw");
    expect(await reasonOf(await land(other.token, attempt.attemptId, landingUrl))).toBe("attempt_over");
    expect(await reasonOf(await land(d.token, "A".repeat(24), landingUrl))).toBe("attempt_over");
    const again = await startAttempt(d.token);
    expect(await reasonOf(await land(d.token, attempt.attemptId, landingUrl))).toBe("attempt_over");
    await db
      .update(platformSignIns)
      .set({ expiresAt: Date.now() - 1 })
      .where(eq(platformSignIns.id, again.attemptId));
    expect(await reasonOf(await land(d.token, again.attemptId, landingUrl))).toBe("attempt_over");
  });

  it("a malformed body is a 400; a Spark account is sent to its own sign-in; Flex has no email-and-password sign-in", async () => {
    const d = await flexDriver();
    // Starting takes no input: whatever is sent is ignored.
    const ignored = await call("/api/driver/connection/sign-in", { token: d.token, body: { email: d.email, password: "platform-pw", junk: [1] } });
    expect(ignored.status).toBe(201);
    const attempt = await startAttempt(d.token);
    expect((await call("/api/driver/connection/landing", { token: d.token, body: { attemptId: attempt.attemptId } })).status).toBe(400);
    expect((await land(d.token, attempt.attemptId, `https://x.example/${"a".repeat(4100)}`)).status).toBe(400);
    const password = await call("/api/driver/connection", { token: d.token, body: { email: d.email, password: "platform-pw" } });
    expect(password.status).toBe(409);
    expect((await json(password)).error.details.reason).toBe("not_spark");
    const spark = await signIn(await seedUser({ app: "spark" }));
    const res = await call("/api/driver/connection/sign-in", { token: spark.idToken, method: "POST" });
    expect(res.status).toBe(409);
    expect((await json(res)).error.details.reason).toBe("not_flex");
  });

  it("starting an attempt is limited like connecting: the 11th of a day is a 429", async () => {
    const d = await flexDriver();
    for (let i = 0; i < RATE_LIMITS.platformConnectPerUser.limit; i++) await startAttempt(d.token);
    const res = await call("/api/driver/connection/sign-in", { token: d.token, method: "POST" });
    expect(res.status).toBe(429);
    expect((await json(res)).error.details).toMatchObject({ reason: "too_many_attempts", retryAfterSeconds: expect.any(Number) });
  });

  it("connecting again replaces the device: the one connected before is deregistered", async () => {
    const d = await flexDriver();
    for (let i = 0; i < 2; i++) {
      const attempt = await startAttempt(d.token);
      expect(await json(await land(d.token, attempt.attemptId, await landingAfterSignIn(attempt.signInUrl, d.email, "platform-pw")))).toEqual({
        status: "connected",
      });
    }
    expect((await defaultWorld().calls(d.customerId))["POST /auth/deregister"]).toBe(1);
    // The new device works.
    expect((await call("/api/driver/stations", { token: d.token })).status).toBe(200);
  });

  it("disconnecting deregisters the device: its tokens no longer work on the platform", async () => {
    const d = await flexDriver();
    const attempt = await startAttempt(d.token);
    await land(d.token, attempt.attemptId, await landingAfterSignIn(attempt.signInUrl, d.email, "platform-pw"));
    const stored = await db.select().from(platformAccounts).where(eq(platformAccounts.userId, d.user.id)).get();
    const tokens = JSON.parse(await openSecret(stored!.sealedTokens!, env.MFA_ENCRYPTION_KEY)) as { refreshToken: string };
    expect((await call("/api/driver/connection", { token: d.token, method: "DELETE" })).status).toBe(200);
    expect((await defaultWorld().calls(d.customerId))["POST /auth/deregister"]).toBe(1);
    const refresh = await fetch(`${env.FLEX_IDENTITY_BASE}/auth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ source_token_type: "refresh_token", source_token: tokens.refreshToken, requested_token_type: "access_token" }),
    });
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: "invalid_grant" });
    expect(await db.select().from(platformAccounts).where(eq(platformAccounts.userId, d.user.id)).get()).toMatchObject({
      sealedTokens: null,
      disconnectReason: "driver",
    });
  });
});
