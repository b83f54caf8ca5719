/**
 * What the platform's limits hold back (platform-holds.ts), on its own: the gate and the pacing it
 * moves, accepting's holds and their one try, the search's hold and a signer configured, the
 * forfeits' queue; each kept across a restart (a new object over the same storage).
 */
import { describe, expect, it } from "vitest";
import { memoryKv } from "../test/engine-fixtures";
import { type DeliveryPlatform, PlatformError, type PlatformOffer } from "./platform";
import { type NewHold, PlatformHolds } from "./platform-holds";

const LOCKOUT = 1000;
const holdsOn = (kv = memoryKv()) => new PlatformHolds(kv, 300, LOCKOUT);
const offer: PlatformOffer = { id: "O1", stationId: "S1", startsAt: 1, endsAt: 2, payCents: 0, expiresAt: 1, hidden: false };

/** A platform whose calls answer what `answer` says, counting them. */
function platform(answer: () => unknown) {
  const calls: string[] = [];
  const run = async (name: string) => {
    calls.push(name);
    const a = answer();
    if (a instanceof Error) throw a;
    return a as never;
  };
  const p: DeliveryPlatform = {
    refresh: () => run("refresh"),
    deregister: () => run("deregister"),
    stations: () => run("stations"),
    offers: () => run("offers"),
    accept: () => run("accept"),
    forfeit: () => run("forfeit"),
    scheduledBlocks: () => run("schedule"),
    checkIn: () => run("checkIn"),
  };
  return { p, calls };
}

const rateExceeded = () => new PlatformError("rate_limited", "Rate exceeded", undefined, 400);

describe("the gate", () => {
  it("a Rate exceeded locks every capacity call out until the wait is over; an answer after it ends the lockout", async () => {
    const kv = memoryKv();
    const holds = holdsOn(kv);
    const answer: unknown = rateExceeded();
    const { p, calls } = platform(() => answer);
    const gated = holds.gated(p);
    await expect(gated.offers("t", [])).rejects.toMatchObject({ kind: "rate_limited" });
    const locked = holds.limit(Date.now());
    expect(locked).toMatchObject({ kind: "rate_limited", until: expect.any(Number) });
    for (const call of [() => gated.accept("t", offer), () => gated.scheduledBlocks("t"), () => gated.forfeit("t", "B"), () => gated.stations("t")]) {
      await expect(call()).rejects.toMatchObject({ kind: "rate_limited", message: "locked_out", retryAfterMs: expect.any(Number) });
    }
    expect(calls).toEqual(["offers"]);
    // The pacing: wider, the limit's interval remembered; kept in storage.
    expect(holdsOn(kv).pacing).toMatchObject({ intervalMs: 450, learnedFloorMs: 375, lockouts: 1 });
    expect(holdsOn(kv).lockedUntil(Date.now())).toBe(locked.kind === "rate_limited" ? locked.until : null);
    // Past the wait, calls go out again; the first answer ends the lockout.
    expect(holds.mayCall(Date.now() + LOCKOUT + 100)).toBe(true);
    expect(holds.limit(Date.now() + LOCKOUT + 100)).toEqual({ kind: "none" });
  });

  it("a Spark 429 with its wait is a back-off, not a lockout; a captcha or a signature is an answer", async () => {
    const holds = holdsOn();
    const answers = [new PlatformError("rate_limited", "slow", 2000, 429), new PlatformError("captcha", "c", undefined, 307), []];
    const { p, calls } = platform(() => answers.shift());
    const gated = holds.gated(p);
    await expect(gated.offers("t", [])).rejects.toMatchObject({ kind: "rate_limited" });
    expect(holds.mayCall(Date.now())).toBe(true);
    await expect(gated.accept("t", offer)).rejects.toMatchObject({ kind: "captcha" });
    expect(await gated.offers("t", [])).toEqual([]);
    expect(calls).toEqual(["offers", "accept", "offers"]);
  });
});

describe("accepting's holds", () => {
  const captcha = new PlatformError("captcha", "c", undefined, 307);
  const signature = new PlatformError("signature_required", "s", undefined, 420);
  it.each([
    ["nothing held: every take", [], Number.POSITIVE_INFINITY, null],
    ["a captcha: none", ["captcha"], 0, "captcha"],
    ["a captcha solved: one try", ["captcha", "solved"], 1, "captcha"],
    ["the try answered: accepting goes on", ["captcha", "solved", "answered"], Number.POSITIVE_INFINITY, null],
    ["the try met a captcha again: none", ["captcha", "solved", "captcha"], 0, "captcha"],
    ["a signature: none, and solving a captcha does not clear it", ["signature", "solved"], 0, "signature"],
    ["a signature cleared by an admin: one try", ["signature", "cleared"], 1, "signature"],
    ["a signature, then a signer configured: one try", ["signature", "signer"], 1, "signature"],
    ["the signer's try met a 420 again: none, whatever the signer", ["signature", "signer", "signatureWithSigner", "signer"], 0, "signature"],
    ["an answer without a try clears nothing", ["captcha", "answered"], 0, "captcha"],
  ] as const)("%s", (_name, steps, allowed, reason) => {
    const kv = memoryKv();
    const holds = holdsOn(kv);
    for (const step of steps) {
      if (step === "captcha") expect(holds.acceptFailed(captcha, 1000)).toBe(true);
      if (step === "signature") expect(holds.acceptFailed(signature, 1000)).toBe(true);
      if (step === "signatureWithSigner") expect(holds.acceptFailed(signature, 1000, true)).toBe(true);
      if (step === "signer") holds.searchHeld(true);
      if (step === "solved") holds.captchaSolved();
      if (step === "cleared") holds.clearSignatureHold();
      if (step === "answered") holds.acceptAnswered();
    }
    const again = holdsOn(kv);
    expect(again.acceptsAllowed()).toBe(allowed);
    expect(again.acceptHold()?.reason ?? null).toBe(reason);
  });

  it("other failures hold nothing; solving with no captcha held says so", () => {
    const holds = holdsOn();
    expect(holds.acceptFailed(new PlatformError("unavailable", "x"), 1)).toBe(false);
    expect(holds.captchaSolved()).toBe(false);
    expect(holds.clearSignatureHold()).toBe(false);
  });
});

describe("the search's hold (a 420 on the offers call)", () => {
  it.each([
    ["held while no signer is configured", false, false, true],
    ["ends when a signer is configured where none was", false, true, false],
    ["held when it came with a signer configured (an admin clears it)", true, true, true],
  ])("%s", (_name, signerThen, signerNow, held) => {
    const kv = memoryKv();
    holdsOn(kv).holdSearch(5000, signerThen);
    const holds = holdsOn(kv);
    expect(holds.searchHeld(signerNow)).toBe(held);
    if (held) expect(holds.limit(6000)).toEqual({ kind: "signature_required", since: 5000, signerConfigured: signerThen });
  });

  it("an admin clears it", () => {
    const holds = holdsOn();
    holds.holdSearch(5000, false);
    expect(holds.clearSignatureHold()).toBe(true);
    expect(holds.searchHeld(false)).toBe(false);
  });
});

describe("the holds that begin (the driver is told once per occurrence)", () => {
  it("a lockout, a captcha and a signature are told when they begin, not while they go on", async () => {
    const began: NewHold[] = [];
    const holds = new PlatformHolds(memoryKv(), 300, LOCKOUT, (hold) => began.push(hold));
    const { p } = platform(rateExceeded);
    const gated = holds.gated(p);
    await expect(gated.offers("t", [])).rejects.toThrow();
    expect(began).toEqual([{ reason: "rate_limited", since: expect.any(Number), until: expect.any(Number) }]);
    const lockout = began[0] as Extract<NewHold, { reason: "rate_limited" }>;
    expect(lockout.until - lockout.since).toBeGreaterThanOrEqual(LOCKOUT);
    const captcha = new PlatformError("captcha", "c", undefined, 307);
    holds.acceptFailed(captcha, 5000);
    holds.acceptFailed(captcha, 6000);
    holds.captchaSolved();
    // The try after "I solved it" met a captcha again: a new occurrence.
    holds.acceptFailed(captcha, 7000);
    expect(began.slice(1)).toEqual([
      { reason: "captcha", since: 5000 },
      { reason: "captcha", since: 7000 },
    ]);
    // A signature on an accept, then on the offers call: one occurrence, told once.
    holds.acceptFailed(new PlatformError("signature_required", "s", undefined, 420), 8000);
    holds.holdSearch(8100, false);
    holds.holdSearch(8200, false);
    expect(began.slice(3)).toEqual([{ reason: "signature", since: 8000 }]);
  });
});

describe("forfeits queued during a lockout", () => {
  it("once per block, with when they were asked, in order, kept across a restart", () => {
    const kv = memoryKv();
    const holds = holdsOn(kv);
    expect(holds.queueForfeit(7, 100)).toBe(100);
    expect(holds.queueForfeit(7, 200)).toBe(100);
    holds.queueForfeit(9, 300);
    const again = holdsOn(kv);
    expect(again.queuedForfeits()).toEqual([
      { id: 7, askedAt: 100 },
      { id: 9, askedAt: 300 },
    ]);
    expect(again.forfeitQueuedAt(9)).toBe(300);
    again.dropForfeit(7);
    expect(holdsOn(kv).queuedForfeits()).toEqual([{ id: 9, askedAt: 300 }]);
    expect(holdsOn(kv).forfeitQueuedAt(7)).toBeNull();
  });
});
