/**
 * Spark's modelled adapter against the fake platform over HTTP (test/fake-platform, under /spark):
 * every test gets a private world (/t/<tenant>), so configuration and faults never leak between
 * tests. Flex's adapter has its own tests (flex-platform.test.ts).
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { controlOf, newWorld } from "../test/fake-platform-world";
import { HttpPlatform } from "./http-platform";
import { PlatformError, type PlatformOffer } from "./platform";

function adapter(base: string, options: Partial<ConstructorParameters<typeof HttpPlatform>[0]> = {}) {
  return new HttpPlatform({ baseUrl: `${base}/spark`, timeoutMs: 400, ...options });
}

/** The offer an accept names (Spark's modelled accept reads only its id). */
const offer = (id: string): PlatformOffer => ({ id, stationId: "BEN-C", startsAt: 0, endsAt: 1, payCents: 0, expiresAt: 1, hidden: false });

async function connected(challenge: "none" | "code" | "approval" = "none") {
  const world = await newWorld();
  await world.control("accounts", { email: "driver@example.com", password: "pw-1", challenge });
  const platform = adapter(world.base);
  return { world, platform };
}

async function signedIn() {
  const { world, platform } = await connected();
  const step = await platform.signIn("driver@example.com", "pw-1");
  if (step.kind !== "tokens") throw new Error("expected tokens");
  return { world, platform, tokens: step.tokens };
}

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

describe("sign-in", () => {
  it("answers tokens for an account without a challenge", async () => {
    const { platform } = await connected();
    const before = Date.now();
    const step = await platform.signIn("driver@example.com", "pw-1");
    expect(step.kind).toBe("tokens");
    if (step.kind !== "tokens") return;
    expect(step.tokens.accessToken).toMatch(/^AT/);
    expect(step.tokens.refreshToken).toMatch(/^RT/);
    expect(step.tokens.accessExpiresAt).toBeGreaterThanOrEqual(before + 3_590_000);
  });

  it("refuses a wrong password", async () => {
    const { platform } = await connected();
    const err = await rejection(platform.signIn("driver@example.com", "nope"));
    expect(err.kind).toBe("refused");
    expect(err.status).toBe(401);
  });

  it("a code challenge: a wrong code is refused, the right one gives tokens, a used session is over", async () => {
    const { world, platform } = await connected("code");
    const step = await platform.signIn("driver@example.com", "pw-1");
    expect(step).toMatchObject({ kind: "code", destination: "d•••@example.com" });
    if (step.kind !== "code") return;
    expect((await rejection(platform.answerCode(step.session, "000000"))).kind).toBe("refused");
    const code = await world.code("driver@example.com");
    const tokens = await platform.answerCode(step.session, code);
    expect(tokens.accessToken).toMatch(/^AT/);
    expect((await rejection(platform.answerCode(step.session, code))).kind).toBe("challenge_over");
  });

  it("a code challenge ends after five wrong codes", async () => {
    const { world, platform } = await connected("code");
    const step = await platform.signIn("driver@example.com", "pw-1");
    if (step.kind !== "code") throw new Error("expected a code");
    for (let i = 0; i < 5; i++) await rejection(platform.answerCode(step.session, "000000"));
    expect((await rejection(platform.answerCode(step.session, await world.code("driver@example.com")))).kind).toBe("challenge_over");
  });

  it("an approval challenge: pending until approved on the other device, then tokens", async () => {
    const { world, platform } = await connected("approval");
    const step = await platform.signIn("driver@example.com", "pw-1");
    expect(step.kind).toBe("approval");
    if (step.kind !== "approval") return;
    expect(await platform.checkApproval(step.session)).toEqual({ kind: "pending" });
    await world.control("approve", { email: "driver@example.com" });
    const done = await platform.checkApproval(step.session);
    expect(done.kind).toBe("tokens");
  });

  it("a denied approval is over", async () => {
    const { world, platform } = await connected("approval");
    const step = await platform.signIn("driver@example.com", "pw-1");
    if (step.kind !== "approval") throw new Error("expected an approval");
    await world.control("approve", { email: "driver@example.com", deny: true });
    expect((await rejection(platform.checkApproval(step.session))).kind).toBe("challenge_over");
  });
});

describe("tokens", () => {
  it("refresh gives a new access token and keeps the refresh token", async () => {
    const { platform, tokens } = await signedIn();
    const next = await platform.refresh(tokens.refreshToken);
    expect(next.accessToken).not.toBe(tokens.accessToken);
    expect(next.refreshToken).toBe(tokens.refreshToken);
    expect(await platform.stations(next.accessToken)).not.toHaveLength(0);
  });

  it("a refresh the platform refuses is 'refused'", async () => {
    const { world, platform, tokens } = await signedIn();
    await world.control("revoke", { email: "driver@example.com" });
    expect((await rejection(platform.refresh(tokens.refreshToken))).kind).toBe("refused");
    // The access token died with it.
    expect((await rejection(platform.stations(tokens.accessToken))).kind).toBe("refused");
  });
});

describe("capacity calls", () => {
  it("lists eligible stations with their zones", async () => {
    const { platform, tokens } = await signedIn();
    const stations = await platform.stations(tokens.accessToken);
    expect(stations).toContainEqual({ id: "BEN-C", name: "Bentonville Central", group: "Arkansas", timeZone: "America/Chicago" });
    expect(new Set(stations.map((s) => s.timeZone)).size).toBeGreaterThan(2);
  });

  it("lists offers in ms and cents, only for the stations asked, and accepts one: won, then gone for anyone", async () => {
    const { world, platform, tokens } = await signedIn();
    const startsAt = Date.parse("2030-01-07T15:00:00Z");
    const [id, other] = await world.offers([
      { app: "spark", serviceAreaId: "BEN-C", startsAt, endsAt: startsAt + 3 * 3_600_000, payCents: 7250 },
      { app: "spark", serviceAreaId: "PHX-W", startsAt, endsAt: startsAt + 3_600_000, payCents: 3000 },
    ]);
    const offers = await platform.offers(tokens.accessToken, ["BEN-C"]);
    expect(offers).toEqual([
      { id, stationId: "BEN-C", startsAt, endsAt: startsAt + 3 * 3_600_000, payCents: 7250, expiresAt: expect.any(Number), hidden: false },
    ]);
    const outcome = await platform.accept(tokens.accessToken, offer(id!));
    expect(outcome).toMatchObject({ kind: "won", block: { offerId: id, stationId: "BEN-C", startsAt, payCents: 7250, arrivedAt: null } });
    expect(await platform.accept(tokens.accessToken, offer(id!))).toEqual({ kind: "gone" });
    expect(await platform.offers(tokens.accessToken, ["BEN-C", "PHX-W"])).toMatchObject([{ id: other }]);
    const blocks = await platform.scheduledBlocks(tokens.accessToken);
    expect(blocks.map((b) => b.offerId)).toEqual([id]);
  });

  it("an expired offer is gone", async () => {
    const { world, platform, tokens } = await signedIn();
    const [id] = await world.offers([
      { app: "spark", serviceAreaId: "BEN-C", startsAt: Date.now() + 7_200_000, endsAt: Date.now() + 10_800_000, payCents: 5000, expiresInMs: -1 },
    ]);
    expect(await platform.accept(tokens.accessToken, offer(id!))).toEqual({ kind: "gone" });
  });

  it("forfeits a future block and checks in near its start", async () => {
    const { world, platform, tokens } = await signedIn();
    const soon = Date.now() + 30 * 60_000;
    const later = Date.now() + 5 * 3_600_000;
    const [near, far] = await world.offers([
      { app: "spark", serviceAreaId: "BEN-C", startsAt: soon, endsAt: soon + 3_600_000, payCents: 4000 },
      { app: "spark", serviceAreaId: "BEN-C", startsAt: later, endsAt: later + 3_600_000, payCents: 4000 },
    ]);
    const a = await platform.accept(tokens.accessToken, offer(near!));
    const b = await platform.accept(tokens.accessToken, offer(far!));
    if (a.kind !== "won" || b.kind !== "won") throw new Error("expected wins");
    const arrived = await platform.checkIn(tokens.accessToken, a.block.id!);
    expect(arrived.arrivedAt).toBeGreaterThan(0);
    const early = await rejection(platform.checkIn(tokens.accessToken, b.block.id!));
    expect(early).toMatchObject({ kind: "rejected", status: 409 });
    await platform.forfeit(tokens.accessToken, b.block.id!);
    expect((await platform.scheduledBlocks(tokens.accessToken)).map((x) => x.id)).toEqual([a.block.id]);
    expect((await rejection(platform.forfeit(tokens.accessToken, b.block.id!))).status).toBe(404);
  });
});

describe("rate limits and faults", () => {
  it("without retries, a 429 is 'rate_limited' with the platform's Retry-After", async () => {
    const { world, tokens } = await signedIn();
    const engine = adapter(world.base, { rateLimitRetries: 0 });
    await world.control("config", { offersRate: 0.5, offersBurst: 1 });
    await engine.offers(tokens.accessToken, ["BEN-C"]);
    const err = await rejection(engine.offers(tokens.accessToken, ["BEN-C"]));
    expect(err).toMatchObject({ kind: "rate_limited", retryAfterMs: 2000 });
    expect((await world.stats()).drivers).toMatchObject({ [Object.keys((await world.stats()).drivers)[0]!]: { polls: 2, overLimit: 1 } });
  });

  it("with retries, waits as asked and succeeds", async () => {
    const { world, tokens } = await signedIn();
    const waits: number[] = [];
    const platform = adapter(world.base, { sleep: async (ms) => void waits.push(ms) });
    await world.control("config", {
      script: [
        { kind: "429", retryAfter: 1 },
        { kind: "429", retryAfter: 2 },
      ],
    });
    expect(await platform.offers(tokens.accessToken, ["BEN-C"])).toEqual([]);
    // Each Retry-After waited as asked, then the call went through.
    expect(waits).toEqual([1000, 2000]);
  });

  it("does not wait longer than it may: a long Retry-After is handed back at once", async () => {
    const { world, platform, tokens } = await signedIn();
    await world.control("config", { script: [{ kind: "429", retryAfter: 30 }] });
    expect(await rejection(platform.offers(tokens.accessToken, ["BEN-C"]))).toMatchObject({ kind: "rate_limited", retryAfterMs: 30_000 });
  });

  it("5xx answers and time-outs are 'unavailable'", async () => {
    const { world, platform, tokens } = await signedIn();
    await world.control("config", { script: [{ kind: "5xx", status: 502 }, { kind: "timeout" }] });
    expect(await rejection(platform.offers(tokens.accessToken, ["BEN-C"]))).toMatchObject({ kind: "unavailable", status: 502 });
    const err = await rejection(platform.offers(tokens.accessToken, ["BEN-C"]));
    expect(err.kind).toBe("unavailable");
    expect(err.message).toMatch(/400 ms/);
  });

  it("an answer of the wrong shape is 'unavailable', not a crash", async () => {
    const platform = new HttpPlatform({ baseUrl: `${env.FAKE_PLATFORM_URL}/nowhere`, timeoutMs: 400 });
    expect((await rejection(platform.signIn("a@b.c", "x"))).kind).toBe("rejected");
    const odd = new HttpPlatform({ baseUrl: `${env.FAKE_PLATFORM_URL}/t/x/__control/stats?`, timeoutMs: 400 });
    expect((await rejection(odd.stations("t"))).kind).toBe("unavailable");
  });

  it("a platform that cannot be reached is 'unavailable'", async () => {
    const platform = new HttpPlatform({ baseUrl: "http://127.0.0.1:1", timeoutMs: 400 });
    expect((await rejection(platform.signIn("a@b.c", "x"))).kind).toBe("unavailable");
  });
});

describe("control helpers", () => {
  it("keep worlds apart", async () => {
    const a = await newWorld();
    const b = await newWorld();
    await a.control("accounts", { email: "x@example.com", password: "pw" });
    const step = await adapter(b.base)
      .signIn("x@example.com", "pw")
      .catch((e: unknown) => e);
    expect(step).toBeInstanceOf(PlatformError);
    expect(controlOf(a.base)).not.toBe(controlOf(b.base));
  });
});
