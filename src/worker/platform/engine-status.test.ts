/**
 * Whether the engine may run for a driver (and why not, in the order the dashboard explains it),
 * the status of a running engine, and platform failures as plain values.
 */
import { describe, expect, it } from "vitest";
import { type ProfileChange, testFilters, testProfile } from "../test/engine-fixtures";
import { blocker, failedResult, type HoldsView, runningStatus, type StopReason } from "./engine-status";
import { PlatformError } from "./platform";

const NOW = 1_000_000_000;

const profile = (change: ProfileChange = {}) => testProfile(NOW, change);
/** Nothing held by the platform's limits. */
const NONE: HoldsView = { limit: { kind: "none" }, acceptHold: null, forfeitsWaiting: 0 };

describe("blocker", () => {
  const rows: [string, ProfileChange, StopReason | null][] = [
    ["connected, set up and paid: may run", {}, null],
    ["paid with no expiry: may run", { expirationAt: null }, null],
    ["not connected", { accountConnected: false }, "disconnected"],
    ["connected without an account row", { account: null }, "disconnected"],
    ["an account whose tokens were dropped", { sealedTokens: null }, "disconnected"],
    ["no filters", { filters: null }, "setup"],
    ["filters with no station", { filters: testFilters([]) }, "setup"],
    ["setup not complete", { setupComplete: false }, "setup"],
    ["service expired", { expirationAt: NOW - 1 }, "expired"],
    ["service expiring this very instant", { expirationAt: NOW }, "expired"],
    ["not in good standing", { goodStanding: false }, "expired"],
    ["disconnected comes before setup", { accountConnected: false, filters: null }, "disconnected"],
    ["setup comes before expiry", { setupComplete: false, expirationAt: NOW - 1 }, "setup"],
  ];
  for (const [name, change, reason] of rows) {
    it(name, () => {
      expect(blocker(profile(change), NOW)).toBe(reason);
    });
  }
});

describe("runningStatus", () => {
  it("searching: the selected stations, until when, the first station's zone, the last poll", () => {
    expect(runningStatus(profile(), { searching: true, until: NOW + 3_600_000 }, NONE, 0, NOW - 2000, NOW)).toEqual({
      state: "searching",
      stations: 2,
      until: NOW + 3_600_000,
      slowedUntil: null,
      lastPollAt: NOW - 2000,
      timeZone: "America/Denver",
      acceptHold: null,
    });
  });
  it("searching while backing off: slowed until the back-off ends", () => {
    expect(runningStatus(profile(), { searching: true, until: NOW + 3_600_000 }, NONE, NOW + 5000, null, NOW)).toMatchObject({
      slowedUntil: NOW + 5000,
      lastPollAt: null,
    });
  });
  it("a back-off that has ended does not slow it", () => {
    expect(runningStatus(profile(), { searching: true, until: NOW + 3_600_000 }, NONE, NOW, null, NOW)).toMatchObject({ slowedUntil: null });
  });
  it("paused: when the next window opens", () => {
    expect(runningStatus(profile(), { searching: false, opensAt: NOW + 7_200_000 }, NONE, NOW + 5000, NOW, NOW)).toEqual({
      state: "paused",
      stations: 2,
      opensAt: NOW + 7_200_000,
      timeZone: "America/Denver",
      acceptHold: null,
    });
  });
  it("paused with no window ahead, and no station in the catalogue: UTC", () => {
    expect(runningStatus(profile({ zones: [] }), { searching: false, opensAt: null }, NONE, 0, null, NOW)).toEqual({
      state: "paused",
      stations: 2,
      opensAt: null,
      timeZone: "UTC",
      acceptHold: null,
    });
  });
  const searching = { searching: true, until: NOW + 3_600_000 } as const;
  const captcha = { reason: "captcha", since: NOW - 60_000 } as const;
  it.each([
    [
      "rate limited: since and until, the forfeits waiting, accepting's hold; whatever the plan and back-off",
      { limit: { kind: "rate_limited", since: NOW - 1000, until: NOW + 1_800_000 }, acceptHold: captcha, forfeitsWaiting: 2 },
      { state: "rate_limited", stations: 2, since: NOW - 1000, until: NOW + 1_800_000, timeZone: "America/Denver", forfeitsWaiting: 2, acceptHold: captcha },
    ],
    [
      "a signature asked for on the offers call: since when, and whether a signer is configured",
      { limit: { kind: "signature_required", since: NOW - 5000, signerConfigured: false }, acceptHold: null, forfeitsWaiting: 0 },
      { state: "signature_required", stations: 2, since: NOW - 5000, timeZone: "America/Denver", signerConfigured: false },
    ],
    [
      "searching with accepting held for a captcha",
      { limit: { kind: "none" }, acceptHold: captcha, forfeitsWaiting: 0 },
      { state: "searching", acceptHold: captcha },
    ],
  ] as [string, HoldsView, object][])("%s", (_name, holds, status) => {
    expect(runningStatus(profile(), searching, holds, NOW + 5000, null, NOW)).toMatchObject(status);
  });
});

describe("failedResult", () => {
  it("a platform error with its wait and status", () => {
    expect(failedResult(new PlatformError("rate_limited", "slow down", 2000, 429))).toEqual({
      ok: false,
      kind: "rate_limited",
      message: "slow down",
      retryAfterMs: 2000,
      status: 429,
    });
  });
  it("a platform error without them: nulls", () => {
    expect(failedResult(new PlatformError("refused", "no"))).toEqual({ ok: false, kind: "refused", message: "no", retryAfterMs: null, status: null });
  });
  it("any other error is thrown on", () => {
    const err = new TypeError("bug");
    expect(() => failedResult(err)).toThrow(err);
  });
});
