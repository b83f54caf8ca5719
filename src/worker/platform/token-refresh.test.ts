/**
 * The engine's platform tokens: opened once, refreshed within five minutes of the access token's
 * expiry (or when forced), saved when refreshed; a refused refresh ends the connection, a failed
 * one keeps a token still valid; and a route's call tried once more with a refreshed token.
 */
import { describe, expect, it } from "vitest";
import { type DeliveryPlatform, PlatformError, type PlatformTokens } from "./platform";
import { PlatformTokenHolder, REFRESH_MARGIN_MS, type TokenAnswer, withAccessToken } from "./token-refresh";

const NOW = 1_000_000_000;
const MIN = 60_000;
const sealed = (accessExpiresAt: number): PlatformTokens => ({ accessToken: "old-access", refreshToken: "old-refresh", accessExpiresAt });
const renewed: PlatformTokens = { accessToken: "new-access", refreshToken: "new-refresh", accessExpiresAt: NOW + 60 * MIN };

/** A holder whose sealed copy opens to `held`, with a platform whose refresh answers `refresh`; it counts what it did. */
function holderWith(held: PlatformTokens, refresh: () => Promise<PlatformTokens>) {
  const seen = { opened: 0, refreshedWith: [] as string[], saved: [] as PlatformTokens[] };
  const holder = new PlatformTokenHolder(
    async () => {
      seen.opened++;
      return held;
    },
    async (tokens) => {
      seen.saved.push(tokens);
    },
  );
  const platform = {
    refresh: (refreshToken: string) => {
      seen.refreshedWith.push(refreshToken);
      return refresh();
    },
  } as DeliveryPlatform;
  return { holder, platform, seen };
}

describe("PlatformTokenHolder", () => {
  type Row = {
    name: string;
    expiresAt: number;
    refresh: () => Promise<PlatformTokens>;
    force?: boolean;
    answer: TokenAnswer | "failed";
    refreshed: boolean;
    saved: boolean;
  };
  const rows: Row[] = [
    {
      name: "far from expiry: the token held, no refresh",
      expiresAt: NOW + 60 * MIN,
      refresh: async () => renewed,
      answer: { kind: "token", accessToken: "old-access" },
      refreshed: false,
      saved: false,
    },
    {
      name: "just over the margin from expiry: no refresh",
      expiresAt: NOW + REFRESH_MARGIN_MS + 1,
      refresh: async () => renewed,
      answer: { kind: "token", accessToken: "old-access" },
      refreshed: false,
      saved: false,
    },
    {
      name: "at the margin: refreshed and saved",
      expiresAt: NOW + REFRESH_MARGIN_MS,
      refresh: async () => renewed,
      answer: { kind: "token", accessToken: "new-access" },
      refreshed: true,
      saved: true,
    },
    {
      name: "expired: refreshed and saved",
      expiresAt: NOW - MIN,
      refresh: async () => renewed,
      answer: { kind: "token", accessToken: "new-access" },
      refreshed: true,
      saved: true,
    },
    {
      name: "forced far from expiry: refreshed and saved",
      expiresAt: NOW + 60 * MIN,
      refresh: async () => renewed,
      force: true,
      answer: { kind: "token", accessToken: "new-access" },
      refreshed: true,
      saved: true,
    },
    {
      name: "a refused refresh ends the connection",
      expiresAt: NOW + MIN,
      refresh: () => Promise.reject(new PlatformError("refused", "token revoked")),
      answer: { kind: "refused", why: "token revoked" },
      refreshed: true,
      saved: false,
    },
    {
      name: "a failed refresh keeps an access token still valid",
      expiresAt: NOW + MIN,
      refresh: () => Promise.reject(new PlatformError("unavailable", "502")),
      answer: { kind: "token", accessToken: "old-access" },
      refreshed: true,
      saved: false,
    },
    {
      name: "a failed refresh with the access token expired fails",
      expiresAt: NOW,
      refresh: () => Promise.reject(new PlatformError("unavailable", "502")),
      answer: "failed",
      refreshed: true,
      saved: false,
    },
    {
      name: "a failed forced refresh fails, though the token was valid",
      expiresAt: NOW + MIN,
      refresh: () => Promise.reject(new PlatformError("rate_limited", "429", 5000)),
      force: true,
      answer: "failed",
      refreshed: true,
      saved: false,
    },
    {
      name: "an error that is not the platform's is a failure too",
      expiresAt: NOW,
      refresh: () => Promise.reject(new TypeError("fetch failed")),
      answer: "failed",
      refreshed: true,
      saved: false,
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const { holder, platform, seen } = holderWith(sealed(row.expiresAt), row.refresh);
      const answer = await holder.accessToken("sealed", platform, NOW, row.force);
      if (row.answer === "failed") expect(answer.kind).toBe("failed");
      else expect(answer).toEqual(row.answer);
      expect(seen.refreshedWith).toEqual(row.refreshed ? ["old-refresh"] : []);
      expect(seen.saved).toEqual(row.saved ? [renewed] : []);
    });
  }

  it("without sealed tokens the connection is over, and nothing is opened", async () => {
    const { holder, platform, seen } = holderWith(sealed(NOW + 60 * MIN), async () => renewed);
    expect(await holder.accessToken(null, platform, NOW)).toEqual({ kind: "refused", why: "no tokens" });
    expect(await holder.accessToken("", platform, NOW)).toEqual({ kind: "refused", why: "no tokens" });
    expect(seen.opened).toBe(0);
  });

  it("opens the sealed copy once, keeps the refreshed pair, and opens again after forget", async () => {
    const { holder, platform, seen } = holderWith(sealed(NOW + MIN), async () => renewed);
    expect(await holder.accessToken("sealed", platform, NOW)).toEqual({ kind: "token", accessToken: "new-access" });
    // The refreshed pair is held: no opening, no refresh, even without the sealed copy.
    expect(await holder.accessToken(null, platform, NOW + MIN)).toEqual({ kind: "token", accessToken: "new-access" });
    expect(seen).toMatchObject({ opened: 1, refreshedWith: ["old-refresh"] });
    holder.forget();
    await holder.accessToken("sealed", platform, NOW);
    expect(seen.opened).toBe(2);
  });

  it("a refresh the save failed after still holds the new pair", async () => {
    const holder = new PlatformTokenHolder(
      async () => sealed(NOW + MIN),
      () => Promise.reject(new Error("D1 busy")),
    );
    const platform = { refresh: async () => renewed } as unknown as DeliveryPlatform;
    expect(await holder.accessToken("sealed", platform, NOW)).toEqual({ kind: "token", accessToken: "new-access" });
    expect(await holder.accessToken("sealed", platform, NOW)).toEqual({ kind: "token", accessToken: "new-access" });
  });
});

describe("withAccessToken", () => {
  /** Tokens answered in turn (null: none left), and the calls made with each. */
  function run(tokens: (string | null)[], call: (token: string) => Promise<string>) {
    const forced: boolean[] = [];
    const calls: string[] = [];
    const ended: string[] = [];
    const result = withAccessToken(
      async (force) => {
        forced.push(force);
        return tokens.shift() ?? null;
      },
      (token) => {
        calls.push(token);
        return call(token);
      },
      async (why) => void ended.push(why),
    );
    return { result, forced, calls, ended };
  }
  const refused = () => Promise.reject(new PlatformError("refused", "401"));

  it("calls once with the current token", async () => {
    const r = run(["t1"], async (t) => `ok ${t}`);
    expect(await r.result).toBe("ok t1");
    expect(r).toMatchObject({ forced: [false], calls: ["t1"] });
  });
  it("a refused token is refreshed by force and the call made once more", async () => {
    const r = run(["t1", "t2"], (t) => (t === "t1" ? refused() : Promise.resolve(`ok ${t}`)));
    expect(await r.result).toBe("ok t2");
    expect(r).toMatchObject({ forced: [false, true], calls: ["t1", "t2"], ended: [] });
  });
  it("refused twice: the connection ends, and the second refusal is the answer", async () => {
    const r = run(["t1", "t2"], refused);
    await expect(r.result).rejects.toMatchObject({ kind: "refused", message: "401" });
    expect(r.calls).toEqual(["t1", "t2"]);
    expect(r.ended).toEqual(["401"]);
  });
  it("no token: not connected, and no call", async () => {
    const r = run([], async () => "ok");
    await expect(r.result).rejects.toMatchObject({ kind: "refused", message: "The platform account is not connected" });
    expect(r.calls).toEqual([]);
  });
  it("no token after a refusal: not connected", async () => {
    const r = run(["t1"], refused);
    await expect(r.result).rejects.toMatchObject({ kind: "refused", message: "The platform account is not connected" });
    expect(r.calls).toEqual(["t1"]);
  });
  it("any other failure is not retried", async () => {
    const r = run(["t1", "t2"], () => Promise.reject(new PlatformError("rate_limited", "429", 2000)));
    await expect(r.result).rejects.toMatchObject({ kind: "rate_limited" });
    expect(r).toMatchObject({ forced: [false], calls: ["t1"] });
  });
});
