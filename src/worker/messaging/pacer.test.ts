import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BURST_SECONDS, nextSlot, pacerFor, SendPacer, sendRate } from "./pacer";

/** Hands out n slots to callers arriving at the given times, as the object would. */
function schedule(arrivals: number[], rate: number, start = 0) {
  let nextFree = start;
  return arrivals.map((now) => {
    const slot = nextSlot(nextFree, now, rate);
    nextFree = slot.nextFree;
    return slot.at;
  });
}

describe("nextSlot", () => {
  it("hands out slots exactly 1/R apart to callers that all arrive at once, after a burst of R·0.25", () => {
    const rate = 40;
    const burst = Math.floor(rate * BURST_SECONDS);
    const slots = schedule(
      Array.from({ length: 30 }, () => 10_000),
      rate,
    );
    expect(slots.slice(0, burst)).toEqual(Array.from({ length: burst }, () => 10_000));
    for (let i = burst; i < 30; i++) expect(slots[i]).toBe(Math.ceil(10_000 + (i - burst + 1) * 25));
  });

  it("never grants a slot in the past, and never two callers the same one beyond the burst", () => {
    const slots = schedule([0, 0, 0, 5, 7, 2000, 2000, 2000], 1);
    expect(slots).toEqual([0, 1000, 2000, 3000, 4000, 5000, 6000, 7000]);
  });

  it("lets an idle sender build up at most the burst, never more", () => {
    const rate = 20;
    const burst = rate * BURST_SECONDS;
    // A long quiet spell, then a crowd: exactly `burst` go at once.
    const slots = schedule(
      Array.from({ length: 10 }, () => 1_000_000),
      rate,
      0,
    );
    expect(slots.filter((t) => t === 1_000_000)).toHaveLength(burst);
  });

  it("keeps any window to at most R·T + burst sends, whatever the arrival pattern", () => {
    const rate = 10;
    const burst = Math.max(1, Math.floor(rate * BURST_SECONDS));
    let t = 0;
    const arrivals = Array.from({ length: 300 }, (_, i) => (t += i % 7 === 0 ? 400 : i % 3 === 0 ? 0 : 37));
    const granted = schedule(arrivals, rate);
    for (const [i, at] of granted.entries()) expect(at).toBeGreaterThanOrEqual(arrivals[i]!);
    const slots = [...granted].sort((a, b) => a - b);
    for (let i = 0; i < slots.length; i++) {
      for (let j = i + 1; j < slots.length; j++) expect(j - i + 1).toBeLessThanOrEqual(burst + Math.floor(((slots[j]! - slots[i]!) * rate) / 1000) + 1);
    }
  });

  it("handles a fractional rate (one message every 20 s)", () => {
    expect(schedule([0, 0, 0], 0.05)).toEqual([0, 20_000, 40_000]);
  });
});

describe("SendPacer (Durable Object)", () => {
  it("keeps its place across calls and stores it", async () => {
    const stub = pacerFor(env, `test:${crypto.randomUUID()}`);
    const a = await stub.reserve(1);
    const b = await stub.reserve(1);
    expect(b - a).toBeGreaterThanOrEqual(999);
    await runInDurableObject(stub, async (instance: SendPacer, state) => {
      expect(state.storage.kv.get<number>("nextFree")).toBeGreaterThan(b);
      expect(instance).toBeInstanceOf(SendPacer);
    });
  });
});

describe("SendPacer.reserveMany (one call for a batch's slots)", () => {
  it("hands out the same slots as as many single calls in a row, and refuses a count outside 1–100", async () => {
    const rate = 40;
    const many = pacerFor(env, `test:${crypto.randomUUID()}`);
    const slots = await many.reserveMany(rate, 30);
    expect(slots).toHaveLength(30);
    // From a fresh pacer: the burst at once, then exactly 1/R apart, as nextSlot schedules them.
    const burst = Math.floor(rate * BURST_SECONDS);
    expect(new Set(slots.slice(0, burst)).size).toBe(1);
    for (let i = burst; i < 30; i++) expect(slots[i]).toBe(slots[0]! + (i - burst + 1) * 25);
    // The next caller continues after the last slot handed out.
    expect(await many.reserve(rate)).toBeGreaterThanOrEqual(slots[29]! + 25);
    await runInDurableObject(many, async (instance: SendPacer) => {
      expect(() => instance.reserveMany(rate, 0)).toThrow(/slot count/);
      expect(() => instance.reserveMany(rate, 101)).toThrow(/slot count/);
    });
  });
});

describe("sendRate", () => {
  it("reads SEND_RATE_PER_SECOND and refuses anything but a positive number", () => {
    expect(sendRate({ SEND_RATE_PER_SECOND: "10" })).toBe(10);
    expect(sendRate({ SEND_RATE_PER_SECOND: "0.5" })).toBe(0.5);
    for (const bad of ["", "0", "-1", "fast", "Infinity"]) expect(() => sendRate({ SEND_RATE_PER_SECOND: bad })).toThrow(/SEND_RATE_PER_SECOND/);
  });
});
