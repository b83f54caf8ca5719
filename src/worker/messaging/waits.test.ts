import { describe, expect, it } from "vitest";
import { MAX_DELAY_SECONDS } from "../queue";
import { callbackWaitMs, delayUntil, leaseMs, requeueAfterMs, resendWaitMs } from "./waits";

describe("the pipeline's waits, from the configuration", () => {
  it.each([
    ["SEND_LEASE_SECONDS", () => leaseMs({ SEND_LEASE_SECONDS: "120" }), 120_000],
    ["CALLBACK_WAIT_SECONDS", () => callbackWaitMs({ CALLBACK_WAIT_SECONDS: "30" }), 30_000],
    ["REQUEUE_AFTER_SECONDS", () => requeueAfterMs({ REQUEUE_AFTER_SECONDS: "180" }), 180_000],
  ])("reads %s in milliseconds", (_name, read, ms) => {
    expect(read()).toBe(ms);
  });

  it.each([
    // An SMS is looked up at the provider: it waits only until a lost request can no longer land there.
    { channel: "sms", callbackWait: "30", timeoutMs: "10000", ms: 10_000 },
    { channel: "sms", callbackWait: "5", timeoutMs: "10000", ms: 5_000 },
    // A provider time-out below the floor reads as the default (10 s).
    { channel: "sms", callbackWait: "30", timeoutMs: "50", ms: 10_000 },
    // WhatsApp cannot be asked: the whole callback wait.
    { channel: "whatsapp", callbackWait: "30", timeoutMs: "10000", ms: 30_000 },
    { channel: "whatsapp", callbackWait: "5", timeoutMs: "10000", ms: 5_000 },
  ] as const)("holds a $channel send that got no answer for $ms ms (callback wait $callbackWait s, time-out $timeoutMs ms)", (row) => {
    expect(resendWaitMs({ CALLBACK_WAIT_SECONDS: row.callbackWait, PROVIDER_TIMEOUT_MS: row.timeoutMs }, row.channel)).toBe(row.ms);
  });

  const now = 1_800_000_000_000;
  it.each([
    { at: now, seconds: 0 },
    { at: now - 60_000, seconds: 0 },
    { at: now + 1, seconds: 1 },
    { at: now + 1_000, seconds: 1 },
    { at: now + 1_001, seconds: 2 },
    { at: now + 3_600_000, seconds: 3_600 },
    // Further than the queue's longest delay: the job re-queues itself for the rest.
    { at: now + 2 * MAX_DELAY_SECONDS * 1000, seconds: MAX_DELAY_SECONDS },
  ])("asks the queue to wait $seconds s for an instant $at", ({ at, seconds }) => {
    expect(delayUntil(at, now)).toBe(seconds);
  });
});
